import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as createTokenRoute } from "../../app/api/agents/[id]/door-tokens/route";
import { GET as getPolicyRoute, PUT as putPolicyRoute } from "../../app/api/policy/route";
import { approvals, auditLog, executionGrants, outboxMessages, steps, workspaces, type WorkspaceSettings } from "../../lib/db/schema";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import { decideApproval } from "../../lib/safety/approvals";
import { approvalSteps } from "../support/approvals";
import { connectDoor, resultText } from "../support/door";
import { demoOwner, makeUser } from "../support/fixtures";
import { getRunRow, makeAgent, settle, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";


/** Deny means deny, now: the policy is applied when a request is decided and again right before its call runs. */
describe("a tool or category turned to deny reaches the requests already waiting", () => {
  const server = useTestServer({ env: { CLAWDECK_DOOR_WAIT_SECONDS: "20" } });
  const { chatAs, decide } = approvalSteps(server);

  async function people() {
    const s = server();
    const owner = await demoOwner(s.db);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    return { s, owner, manager, reviewer, managerCookie: await sessionCookie(s, manager) };
  }

  /** The manager saves the current policy with `slack.post` set to `mode` (or left out), as the policy page does. */
  async function setSlack(cookie: string, mode: "deny" | null) {
    const { policy } = await (await getPolicyRoute(jsonRequest("/api/policy", { cookie }))).json();
    const tools = { ...policy.overrides.tools };
    if (mode) tools["slack.post"] = mode;
    else delete tools["slack.post"];
    const res = await putPolicyRoute(
      jsonRequest("/api/policy", {
        method: "PUT",
        cookie,
        body: { overrides: { ...policy.overrides, tools }, fourEyesCategories: policy.fourEyesCategories, approvalTtlSeconds: policy.approvalTtlSeconds, version: policy.version },
      }),
    );
    expect(res.status).toBe(200);
    return res.json() as Promise<{ withdrawn: number }>;
  }

  const approvalRow = async (id: string) => (await server().db.select().from(approvals).where(eq(approvals.id, id)))[0]!;
  const pendingOf = (agentId: string) =>
    settle(async () => (await server().db.select().from(approvals).where(and(eq(approvals.agentId, agentId), eq(approvals.status, "pending"))))[0]);

  it("denying slack.post while a chat's post waits withdraws it with the reason; the run goes on told so, a later approve gets 409, and nothing is posted", async () => {
    const { s, owner, reviewer, managerCookie } = await people();
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const runId = await chatAs(owner, owner.workspaceId, herald.id, "slack #general the launch moved");
    const waiting = await pendingOf(herald.id);
    try {
      expect((await setSlack(managerCookie, "deny")).withdrawn).toBe(1);
      const withdrawn = await approvalRow(waiting.id);
      expect(withdrawn).toMatchObject({ status: "withdrawn", reason: "The workspace policy denies `slack.post`." });
      const events = await waitForRun(s.db, runId);
      expect(events.at(-1)?.type).toBe("run_completed");
      const decided = events.find((e) => e.type === "approval_decided");
      expect(decided?.payload).toMatchObject({ approvalId: waiting.id, status: "withdrawn", decidedBy: null });
      const [step] = await s.db.select().from(steps).where(eq(steps.id, waiting.stepId!));
      expect(step).toMatchObject({ status: "refused" });
      expect(step!.error).toContain("withdrawn");

      const late = await decide(reviewer, waiting.id);
      expect(late.status).toBe(409);
      expect(await late.json()).toMatchObject({ code: "conflict:approval", details: { status: "withdrawn" } });
      expect(await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).toEqual([]);
      expect(await s.db.select().from(executionGrants).where(eq(executionGrants.approvalId, waiting.id))).toEqual([]);
      const audit = await s.db.select().from(auditLog).where(and(eq(auditLog.action, "approval.withdrawn"), eq(auditLog.targetId, waiting.id)));
      expect(audit).toHaveLength(1);
    } finally {
      await setSlack(managerCookie, null);
    }
  });

  it("a plain approve of a request whose tool the policy came to deny (set behind the withdrawal's back) is refused with 409 and withdraws it; the post never goes out", async () => {
    const { s, owner, reviewer } = await people();
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const runId = await chatAs(owner, owner.workspaceId, herald.id, "slack #general plain approve");
    const waiting = await pendingOf(herald.id);
    const [ws] = await s.db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, owner.workspaceId));
    const settings: WorkspaceSettings = { ...ws!.settings, policy: { tools: { "slack.post": "deny" }, categories: {} } };
    await s.db.update(workspaces).set({ settings }).where(eq(workspaces.id, owner.workspaceId));
    try {
      const res = await decide(reviewer, waiting.id);
      expect(res.status).toBe(409);
      const body = await res.json();
      expect(body).toMatchObject({ code: "conflict:approval", details: { status: "withdrawn" } });
      expect(body.message).toContain("denies `slack.post`");
      expect((await approvalRow(waiting.id)).status).toBe("withdrawn");
      await waitForRun(s.db, runId);
      expect(await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).toEqual([]);
    } finally {
      await s.db.update(workspaces).set({ settings: ws!.settings }).where(eq(workspaces.id, owner.workspaceId));
    }
  });

  it("an approval granted before the deny, whose run had not resumed yet, is not run: the policy is read again right before the call, and its grant stays unused", async () => {
    const { s, owner, reviewer } = await people();
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const runId = await chatAs(owner, owner.workspaceId, herald.id, "slack #general approved then denied");
    const waiting = await pendingOf(herald.id);
    // Decided without the route's resume, as when the deciding process stops before resuming.
    await decideApproval(s.db, s.bus, s.runtime.deps.tools, { workspaceId: owner.workspaceId, approvalId: waiting.id, decider: { userId: reviewer.id, role: "reviewer" }, decision: "approve" });
    const [ws] = await s.db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, owner.workspaceId));
    await s.db
      .update(workspaces)
      .set({ settings: { ...ws!.settings, policy: { tools: {}, categories: { external_send: "deny", tainted_egress: "deny" } } } })
      .where(eq(workspaces.id, owner.workspaceId));
    try {
      expect(await s.runtime.resumeRun(runId)).toBe(true);
      await waitForRun(s.db, runId);
      const [step] = await s.db.select().from(steps).where(eq(steps.id, waiting.stepId!));
      expect(step?.status).toBe("refused");
      expect(step?.error).toContain("The workspace policy denies calls that send outside the workspace. It was approved before that, but nothing was done.");
      expect(await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).toEqual([]);
      const [grant] = await s.db.select().from(executionGrants).where(eq(executionGrants.approvalId, waiting.id));
      expect(grant?.consumedAt).toBeNull();
      expect((await getRunRow(s.db, runId)).state).toBe("succeeded");
    } finally {
      await s.db.update(workspaces).set({ settings: ws!.settings }).where(eq(workspaces.id, owner.workspaceId));
    }
  });

  it("through the door: a call waiting for a reviewer is answered with the withdrawal as soon as the manager denies its tool; nothing is posted", async () => {
    const { s, owner, managerCookie } = await people();
    const agent = await makeAgent(s.db, owner.workspaceId, { tools: ["slack.post"] });
    const made = await createTokenRoute(jsonRequest(`/api/agents/${agent.id}/door-tokens`, { method: "POST", cookie: await sessionCookie(s, owner), body: { name: "laptop" } }), params({ id: agent.id }));
    const { token } = (await made.json()) as { token: string };
    const client = await connectDoor(token);
    const call = client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "door post" } });
    const waiting = await pendingOf(agent.id);
    try {
      expect((await setSlack(managerCookie, "deny")).withdrawn).toBe(1);
      const result = await call;
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain("withdrawn");
      expect(resultText(result)).toContain("denies `slack.post`");
      const events = await readRunEvents(s.db, waiting.runId, 0);
      expect(events.some((e) => e.type === "approval_decided" && e.payload.status === "withdrawn")).toBe(true);
      expect(await s.db.select().from(outboxMessages).where(eq(outboxMessages.agentId, agent.id))).toEqual([]);
    } finally {
      await setSlack(managerCookie, null);
      await client.close();
    }
  });
});
