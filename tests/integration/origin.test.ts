import { describe, expect, it } from "vitest";
import { POST as createWorkspaceRoute } from "../../app/api/workspaces/route";
import { listWorkspacesForUser } from "../../lib/workspaces/workspaces";
import { makeUser } from "../support/fixtures";
import { APP_ORIGIN, sessionCookie, useTestServer } from "../support/server";

describe("writes must come from the app's own pages", () => {
  const server = useTestServer();

  /** Creates a workspace as a signed-in user with exactly these origin headers (plus the server's Host). */
  async function createWith(headers: Record<string, string>) {
    const s = server();
    const user = await makeUser(s.db);
    const cookie = await sessionCookie(s, user);
    const req = new Request(new URL("/api/workspaces", APP_ORIGIN), {
      method: "POST",
      headers: { host: "localhost:3000", cookie, "content-type": "application/json", ...headers },
      body: JSON.stringify({ name: "Origin Test" }),
    });
    const res = await createWorkspaceRoute(req);
    return { res, body: await res.json(), workspaces: await listWorkspacesForUser(s.db, user.id) };
  }

  it("a write from another site's page (foreign Origin) gets 403 forbidden:origin and creates nothing", async () => {
    const { res, body, workspaces } = await createWith({ origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(body.code).toBe("forbidden:origin");
    expect(workspaces).toEqual([]);
  });

  it("a write with neither Origin nor Sec-Fetch-Site gets 403 forbidden:origin and creates nothing", async () => {
    const { res, body, workspaces } = await createWith({});
    expect(res.status).toBe(403);
    expect(body.code).toBe("forbidden:origin");
    expect(workspaces).toEqual([]);
  });

  it("a write without Origin that the browser marks Sec-Fetch-Site: same-origin is allowed (201)", async () => {
    const { res, workspaces } = await createWith({ "sec-fetch-site": "same-origin" });
    expect(res.status).toBe(201);
    expect(workspaces.map((w) => w.name)).toEqual(["Origin Test"]);
  });

  it("a write with the app's own Origin is allowed (201)", async () => {
    const { res } = await createWith({ origin: APP_ORIGIN });
    expect(res.status).toBe(201);
  });

  it("spoofing X-Forwarded-Host to match a foreign Origin does not help: 403 forbidden:origin", async () => {
    const { res, body, workspaces } = await createWith({ origin: "https://evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" });
    expect(res.status).toBe(403);
    expect(body.code).toBe("forbidden:origin");
    expect(workspaces).toEqual([]);
  });

  it("a cross-site request carrying the app's Origin is still refused when the browser says cross-site", async () => {
    const { res, body } = await createWith({ origin: APP_ORIGIN, "sec-fetch-site": "cross-site" });
    expect(res.status).toBe(403);
    expect(body.code).toBe("forbidden:origin");
  });
});
