import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as getTimeZone, PUT as putTimeZone } from "../../app/api/workspace/time-zone/route";
import { POST as createWorkspaceRoute } from "../../app/api/workspaces/route";
import { auditLog, workspaces } from "../../lib/db/schema";
import { demoOwner, makeUser } from "../support/fixtures";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";

describe("the workspace's time zone", () => {
  const server = useTestServer();
  const zoneOf = async (workspaceId: string) =>
    (await server().db.select({ timeZone: workspaces.timeZone }).from(workspaces).where(eq(workspaces.id, workspaceId)))[0]!.timeZone;

  it("starts as UTC, is read by every member, and is changed by a manager with an audit entry", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const read = await getTimeZone(jsonRequest("/api/workspace/time-zone", { cookie: await sessionCookie(s, member) }));
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ timeZone: "UTC" });

    const put = await putTimeZone(jsonRequest("/api/workspace/time-zone", { method: "PUT", cookie: await sessionCookie(s, manager), body: { timeZone: "Asia/Tokyo" } }));
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ timeZone: "Asia/Tokyo" });
    expect(await zoneOf(owner.workspaceId)).toBe("Asia/Tokyo");
    const audit = await s.db.select().from(auditLog).where(eq(auditLog.action, "workspace.time_zone_changed"));
    expect(audit.map((a) => [a.actorId, a.detail])).toEqual([[manager.id, { from: "UTC", to: "Asia/Tokyo" }]]);
  });

  it("refuses a zone that does not exist with 422 unprocessable:time_zone and changes nothing", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const before = await zoneOf(owner.workspaceId);
    for (const timeZone of ["Mars/Olympus_Mons", "Europe/Berlinn", "utc+2", "../../etc/passwd"]) {
      const res = await putTimeZone(jsonRequest("/api/workspace/time-zone", { method: "PUT", cookie, body: { timeZone } }));
      expect(res.status, timeZone).toBe(422);
      const body = await res.json();
      expect(body.code).toBe("unprocessable:time_zone");
      expect(body.details).toEqual([{ path: "timeZone", message: "Unknown time zone" }]);
    }
    // Not a string at all is malformed input: 400 with the route's stable code.
    const malformed = await putTimeZone(jsonRequest("/api/workspace/time-zone", { method: "PUT", cookie, body: { timeZone: 42 } }));
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).code).toBe("bad_request:body");
    expect(await zoneOf(owner.workspaceId)).toBe(before);
  });

  it("refuses members and reviewers with 403 forbidden:role and changes nothing", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const before = await zoneOf(owner.workspaceId);
    for (const role of ["member", "reviewer"] as const) {
      const person = await makeUser(s.db, owner.workspaceId, role);
      const res = await putTimeZone(
        jsonRequest("/api/workspace/time-zone", { method: "PUT", cookie: await sessionCookie(s, person), body: { timeZone: "Europe/Berlin" } }),
      );
      expect(res.status, role).toBe(403);
      expect((await res.json()).code).toBe("forbidden:role");
    }
    expect(await zoneOf(owner.workspaceId)).toBe(before);
  });

  it("refuses a request without a session with 401", async () => {
    const res = await putTimeZone(jsonRequest("/api/workspace/time-zone", { method: "PUT", body: { timeZone: "Europe/Berlin" } }));
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("unauthorized:session");
  });

  it("a new workspace takes its creator's browser zone, or UTC when the zone is unknown", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const made = await createWorkspaceRoute(jsonRequest("/api/workspaces", { method: "POST", cookie, body: { name: "Tokyo Team", timeZone: "Asia/Tokyo" } }));
    expect(made.status).toBe(201);
    expect(await zoneOf((await made.json()).workspace.id)).toBe("Asia/Tokyo");
    const odd = await createWorkspaceRoute(jsonRequest("/api/workspaces", { method: "POST", cookie, body: { name: "Nowhere Team", timeZone: "Nowhere/Special" } }));
    expect(odd.status).toBe(201);
    expect(await zoneOf((await odd.json()).workspace.id)).toBe("UTC");
  });
});
