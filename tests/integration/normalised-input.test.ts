import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as createTokenRoute } from "../../app/api/agents/[id]/door-tokens/route";
import { agentRuns, approvals, outboxMessages, steps, workspaces } from "../../lib/db/schema";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { approvalSteps } from "../support/approvals";
import { connectDoor, resultText } from "../support/door";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, settle, suspension, useScriptedModel, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";


/**
 * A call whose input the tool's schema changes (`general` → `#general`, `@Atlas` → `atlas`, padding trimmed) is shown,
 * approved and run as the schema made it: the approval, the saved call and the grant hold the same input.
 */
describe("approved calls run with the input the schema made of them", () => {
  const server = useTestServer({ env: { CLAWDECK_DOOR_WAIT_SECONDS: "5" } });
  const { chatAs, decide } = approvalSteps(server);

  const stepOf = async (runId: string, tool: string) => {
    const [step] = await server().db.select().from(steps).where(and(eq(steps.runId, runId), eq(steps.tool, tool)));
    return step!;
  };

  it("a chat's Slack post to `  General ` (no #, capitals, padding) is shown as #general, approved, and posted once as shown", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    useScriptedModel(s, [toolTurn([{ id: "c1", name: "slack.post", input: { channel: "  General ", text: " launch at ten " } }]), textTurn(["Posted."])], "normalising");
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "normalising", tools: ["slack.post"] });
    const runId = await chatAs(owner, owner.workspaceId, agent.id, "announce the launch");
    const approval = await suspension(s.db, runId);
    expect(approval.input).toEqual({ channel: "#general", text: "launch at ten" });
    expect(JSON.stringify(approval.preview)).toContain("#general");
    expect((await decide(await makeUser(s.db, owner.workspaceId, "reviewer"), approval.id)).status).toBe(200);
    await waitForRun(s.db, runId);
    const step = await stepOf(runId, "slack.post");
    expect(step.status).toBe("succeeded");
    const sent = await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId));
    expect(sent.map((m) => ({ destination: m.destination, body: m.body }))).toEqual([{ destination: "#general", body: "launch at ten" }]);
  });

  it("a chat's message to `@Atlas` (capital, @) is approved and delivered to @atlas", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const handle = `atlas${Date.now().toString(36)}`;
    const atlas = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: [], handle });
    useScriptedModel(s, [toolTurn([{ id: "c1", name: "chat.send", input: { to: `@${handle.toUpperCase()}`, message: "the numbers are in" } }]), textTurn(["Sent."])], "normalising2");
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "normalising2", tools: ["chat.send"] });
    // Messages between agents are gated only by this workspace's policy.
    const policy = { policy: { tools: { "chat.send": "ask" as const }, categories: {} } };
    await s.db.update(workspaces).set({ settings: policy }).where(eq(workspaces.id, owner.workspaceId));
    try {
      const runId = await chatAs(owner, owner.workspaceId, agent.id, "tell atlas");
      const approval = await suspension(s.db, runId);
      expect(approval.input).toMatchObject({ to: handle });
      expect((await decide(await makeUser(s.db, owner.workspaceId, "reviewer"), approval.id)).status).toBe(200);
      await waitForRun(s.db, runId);
      expect((await stepOf(runId, "chat.send")).status).toBe("succeeded");
      const received = await settle(async () => (await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, atlas.id)))[0]);
      expect(received.inputText).toContain("the numbers are in");
    } finally {
      await s.db.update(workspaces).set({ settings: {} }).where(eq(workspaces.id, owner.workspaceId));
    }
  });

  it("through the door: `General` is shown as #general, approved, and runs once for the waiting call", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { tools: ["slack.post"] });
    const made = await createTokenRoute(
      jsonRequest(`/api/agents/${agent.id}/door-tokens`, { method: "POST", cookie: await sessionCookie(s, owner), body: { name: "laptop" } }),
      params({ id: agent.id }),
    );
    const { token } = (await made.json()) as { token: string };
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    const client = await connectDoor(token);
    const call = client.callTool({ name: "slack.post", arguments: { channel: "General", text: "door hello" } });
    const approval = await settle(async () => (await s.db.select().from(approvals).where(and(eq(approvals.agentId, agent.id), eq(approvals.status, "pending"))))[0]);
    expect(approval.input).toEqual({ channel: "#general", text: "door hello" });
    expect((await decide(reviewer, approval.id)).status).toBe(200);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain("outbox");
    expect(await s.db.select().from(outboxMessages).where(eq(outboxMessages.agentId, agent.id))).toHaveLength(1);
    await client.close();
  });
});
