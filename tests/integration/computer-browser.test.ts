import http from "node:http";
import type { AddressInfo } from "node:net";
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChat } from "../../lib/chats/chats";
import { readFileVersion } from "../../lib/computers/files";
import { steps } from "../../lib/db/schema";
import type { BrowserOutput } from "../../lib/tools/browser";
import { approvalSteps } from "../support/approvals";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, settle, suspension, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie } from "../support/server";
import { PATCH as agentRoute } from "../../app/api/agents/[id]/route";
import { useTestServer } from "../support/server";

const PAGES: Record<string, string> = {
  "/": `<html><head><title>Release notes</title></head><body><h1>Release 4.2</h1><p>Faster builds.</p><a href="/details">Read the details</a>
    <script>fetch("http://127.0.0.1:5432/").catch(() => {}); fetch("http://169.254.169.254/latest/meta-data/").catch(() => {});</script></body></html>`,
  "/details": `<html><head><title>Details</title></head><body><p>Build times fell by a third.</p></body></html>`,
};

describe("an agent's browser: a real Chromium in its own sandbox, reading the web through the egress proxy", () => {
  const server = useTestServer();
  const { decide } = approvalSteps(server);
  let site: http.Server;
  let origin = "";

  beforeAll(async () => {
    site = http.createServer((req, res) => {
      const page = PAGES[req.url ?? ""];
      res.writeHead(page ? 200 : 404, { "content-type": "text/html" });
      res.end(page ?? "<p>Not here</p>");
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    server().runtime.deps.fetchAllow = [new URL(origin).host];
  });
  afterAll(async () => {
    server().runtime.deps.fetchAllow = [];
    await new Promise((resolve) => site.close(resolve));
  });

  async function turn(agentId: string, text: string) {
    const s = server();
    const owner = await demoOwner(s.db);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agentId } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text });
    await waitForRun(s.db, runId, 90_000);
    return s.db.select().from(steps).where(eq(steps.runId, runId)).orderBy(asc(steps.position));
  }

  it("opens a page, reads it, keeps a screenshot tainted by the page, and follows a link on the next call", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["browser.open", "browser.act", "shell.exec"] });

    const [opened] = await turn(agent.id, `browse ${origin}/`);
    expect(opened?.error).toBeNull();
    expect(opened?.status).toBe("succeeded");
    const out = opened!.output as BrowserOutput;
    expect(out).toMatchObject({ url: `${origin}/`, title: "Release notes", screenshotPath: ".browser/1.png", screenshotVersion: 1 });
    expect(out.text).toContain("Release 4.2");
    expect(out.links).toEqual([{ text: "Read the details", url: `${origin}/details` }]);
    expect(opened?.taint).toEqual(["web:127.0.0.1"]);
    // The page's own requests to the database and the metadata service were refused at the proxy.
    expect(out.refused).toEqual(
      expect.arrayContaining([
        "Refused to connect to 127.0.0.1:5432: 127.0.0.1 is a loopback address.",
        "Refused to connect to 169.254.169.254:80: 169.254.169.254 is a link-local address (the cloud metadata service).",
      ]),
    );
    const shot = await readFileVersion(s.db, agent.id, ".browser/1.png");
    expect(shot?.content.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(shot?.taint).toEqual(["web:127.0.0.1"]);

    // The browser stays open between calls: a click acts on the page the last call left. A click can submit a form,
    // so after reading the web it waits for a person; here the workspace's reviewer is the test.
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "click Read the details" });
    const approval = await suspension(s.db, runId);
    expect([approval.tool, approval.category]).toEqual(["browser.act", "external_send"]);
    expect(approval.preview).toMatchObject({ title: "Click on the page in the agent's browser", fields: [{ label: "On", value: "Read the details" }] });
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    expect((await decide(reviewer, approval.id)).status).toBe(200);
    await waitForRun(s.db, runId, 90_000);
    const [clicked] = await s.db.select().from(steps).where(eq(steps.runId, runId));
    expect(clicked?.status).toBe("succeeded");
    expect(clicked!.output as BrowserOutput).toMatchObject({ url: `${origin}/details`, title: "Details", screenshotPath: ".browser/2.png" });
    expect((clicked!.output as BrowserOutput).text).toBe("Build times fell by a third.");
  });

  it("refuses a page on a private address, and a command can read the screenshot it kept", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["browser.open", "shell.exec"] });
    const [refused] = await turn(agent.id, "browse http://10.9.8.7/");
    expect(refused?.status).toBe("succeeded");
    const out = refused!.output as BrowserOutput;
    expect(out.text).toBe("Refused to connect to 10.9.8.7:80: 10.9.8.7 is a private address.");
    expect(out.refused).toContain("Refused to connect to 10.9.8.7:80: 10.9.8.7 is a private address.");
    const [listed] = await turn(agent.id, "run file .browser/1.png || od -c .browser/1.png | head -1");
    expect((listed?.output as { stdout: string }).stdout).toMatch(/PNG/);
  });

  it("pausing the agent closes its browser", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["browser.open"] });
    const [opened] = await turn(agent.id, `browse ${origin}/details`);
    expect(opened?.status).toBe("succeeded");
    const browsers = s.runtime.deps.computers!.browsers;
    expect(browsers.isOpen(agent.id)).toBe(true);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const paused = await agentRoute(jsonRequest(`/api/agents/${agent.id}`, { method: "PATCH", cookie: await sessionCookie(s, manager), body: { status: "paused" } }), params({ id: agent.id }));
    expect(paused.status).toBe(200);
    await settle(async () => !browsers.isOpen(agent.id), 5_000);
  });
});
