import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as decisionRoute } from "../../app/api/approvals/[id]/decision/route";
import { POST as batchRoute } from "../../app/api/approvals/decisions/route";
import { GET as listRoute } from "../../app/api/approvals/route";
import { PUT as budgetsRoute } from "../../app/api/budgets/route";
import { POST as createCrewRoute } from "../../app/api/crews/route";
import { POST as startMissionRoute } from "../../app/api/crews/[id]/missions/route";
import { GET as missionRoute } from "../../app/api/missions/[id]/route";
import { createChat } from "../../lib/chats/chats";
import { agentRuns, approvals, auditLog, executionGrants, messages, missionRuns, notifications } from "../../lib/db/schema";
import { planNotifications } from "../../lib/notifications/outbox";
import { countPendingApprovals } from "../../lib/safety/approvals";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { createRuntime } from "../../lib/runtime/runtime";
import { demoOwner, makeUser } from "../support/fixtures";
import { getRunRow, makeAgent, settle, suspension, textOf, useScriptedModel, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

type Person = { id: string; email: string; name: string };

/**
 * The scripted model is charged at the default $3 / $15 per Mtok: a call of 1000 in and 500 out costs 10,500 credits.
 * A cap of 10,000 credits ($0.01) is passed by the first call, so the run asks before its second.
 */
const calls = { inputTokens: 1000, outputTokens: 500 };
const CAP = 10_000;
const recallThenAnswer = (answer: string) => [
  toolTurn([{ id: "call_recall", name: "memory.recall", input: { query: "launch" } }], "Part one. ", calls),
  textTurn([answer], calls),
];

describe("caps that ask before they stop: a run or a mission at its cap waits for a manager", () => {
  const server = useTestServer();

  async function setup(options: { starterRole?: "member" | "manager" } = {}) {
    const s = server();
    const owner = await demoOwner(s.db);
    const workspaceId = owner.workspaceId;
    const manager = await makeUser(s.db, workspaceId, "manager");
    const reviewer = await makeUser(s.db, workspaceId, "reviewer");
    const starter = await makeUser(s.db, workspaceId, options.starterRole ?? "member");
    const agent = await makeAgent(s.db, workspaceId, { tools: ["memory.recall"] });
    return { s, owner, workspaceId, manager, reviewer, starter, agent };
  }

  async function setRunCap(manager: Person, agentId: string, runCapCredits: number | null) {
    const res = await budgetsRoute(jsonRequest("/api/budgets", { method: "PUT", cookie: await sessionCookie(server(), manager), body: { agents: [{ agentId, runCapCredits }] } }));
    expect(res.status).toBe(200);
    return res.json();
  }

  async function chat(workspaceId: string, user: { id: string }, agentId: string, text = "Write the launch note") {
    const s = server();
    const session = await createChat(s.db, { workspaceId, userId: user.id, agent: { id: agentId } });
    return (await s.runtime.startChatRun({ workspaceId, sessionId: session.id, userId: user.id, text })).runId;
  }

  async function decide(user: Person, approvalId: string, decision: "approve" | "reject", extra: Record<string, unknown> = {}) {
    const s = server();
    const body = { decision, ...(decision === "reject" ? { reason: "Enough for today" } : {}), ...extra };
    return decisionRoute(jsonRequest(`/api/approvals/${approvalId}/decision`, { method: "POST", cookie: await sessionCookie(s, user), body }), params({ id: approvalId }));
  }

  async function replyOf(runId: string) {
    const run = await getRunRow(server().db, runId);
    const [reply] = await server().db.select().from(messages).where(eq(messages.id, run.replyMessageId!));
    return reply!.content;
  }

  it("a run past its cap per run suspends on a request in words; reviewers and the person it acts for cannot approve it; a manager's approval raises the cap once and the run goes on exactly once", async () => {
    const { s, workspaceId, manager, reviewer, starter, agent } = await setup({ starterRole: "manager" });
    const overview = await setRunCap(manager, agent.id, CAP);
    expect(overview.agents.find((a: { agentId: string }) => a.agentId === agent.id)).toMatchObject({ runCapCredits: CAP });
    const model = useScriptedModel(s, recallThenAnswer("Done."));
    const runId = await chat(workspaceId, starter, agent.id);

    const approval = await suspension(s.db, runId);
    expect(approval).toMatchObject({ category: "budget", tool: "budget:continue", stepId: null, fourEyes: true, onBehalfOfUserId: starter.id });
    expect(approval.preview).toMatchObject({ title: `@${agent.handle}'s run has spent $0.0105 of its $0.0100 cap; continue with another $0.0100?` });
    expect(model.requests).toHaveLength(1);
    // Only those who may decide it are told: managers and owners, not the reviewer, not the manager it acts for.
    const mailing = { email: { send: async () => undefined }, push: null, slack: null };
    await planNotifications(s.db, s.runtime.deps.tools, mailing, new Date(approval.createdAt.getTime() + 1000));
    const told = (await s.db.select({ userId: notifications.userId }).from(notifications).where(eq(notifications.approvalId, approval.id))).map((n) => n.userId);
    expect(told).toContain(manager.id);
    expect(told).not.toContain(reviewer.id);
    expect(told).not.toContain(starter.id);
    // The inbox's badge counts it for those who may decide it only.
    const [forManager, forReviewer] = [await countPendingApprovals(s.db, workspaceId, "manager"), await countPendingApprovals(s.db, workspaceId, "reviewer")];
    const waitingCaps = await s.db.select({ id: approvals.id }).from(approvals).where(and(eq(approvals.workspaceId, workspaceId), eq(approvals.status, "pending"), eq(approvals.category, "budget")));
    expect(waitingCaps.map((a) => a.id)).toContain(approval.id);
    expect(forManager - forReviewer).toBe(waitingCaps.length);
    const suspendedEvents = await readRunEvents(s.db, runId, 0);
    expect(suspendedEvents.find((e) => e.type === "approval_required")?.payload).toMatchObject({ approvalId: approval.id, stepId: null, category: "budget" });
    expect(suspendedEvents.at(-1)?.type).toBe("run_suspended");

    // Reviewers decide tool calls, not spending: refused, as is the person the run acts for (four eyes).
    const byReviewer = await decide(reviewer, approval.id, "approve");
    expect(byReviewer.status).toBe(403);
    expect((await byReviewer.json()).code).toBe("forbidden:role");
    const byReviewerReject = await decide(reviewer, approval.id, "reject");
    expect(byReviewerReject.status).toBe(403);
    const ownApproval = await decide(starter, approval.id, "approve");
    expect(ownApproval.status).toBe(403);
    expect((await ownApproval.json()).code).toBe("forbidden:four_eyes");
    // There is no input to edit.
    const edited = await decide(manager, approval.id, "approve", { input: { scope: "run" } });
    expect(edited.status).toBe(400);
    expect((await edited.json()).code).toBe("bad_request:body");
    expect((await getRunRow(s.db, runId)).state).toBe("suspended");

    // Two other processes race to resume as the manager approves: the run goes on once.
    const other = createRuntime({ ...s.runtime.deps, instanceId: "another-process" });
    const approved = await decide(manager, approval.id, "approve");
    expect(approved.status).toBe(200);
    await Promise.all([s.runtime.resumeRun(runId), other.resumeRun(runId)]);
    await Promise.all([s.runtime.drain(), other.drain()]);
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.type).toBe("run_completed");
    await s.runtime.sweep();
    expect((await readRunEvents(s.db, runId, 0)).filter((e) => e.type === "run_resumed")).toHaveLength(1);
    expect(model.requests).toHaveLength(2);
    expect(textOf(events)).toBe("Part one. \n\nDone.");
    expect(await getRunRow(s.db, runId)).toMatchObject({ state: "succeeded", capRaisedCredits: CAP, credits: 21_000 });
    // No grant: nothing of a tool runs on this approval. The raise is audited with the figures.
    expect(await s.db.select().from(executionGrants).where(eq(executionGrants.approvalId, approval.id))).toHaveLength(0);
    const [audit] = await s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, workspaceId), eq(auditLog.action, "budget.cap_raised"), eq(auditLog.targetId, runId)));
    expect(audit).toMatchObject({ actorId: manager.id, detail: { approvalId: approval.id, scope: "run", fromCapCredits: CAP, toCapCredits: 2 * CAP, stepCredits: CAP } });
  });

  it("a member sees what the request asks without its figures; a manager sees them", async () => {
    const { s, workspaceId, manager, starter, agent } = await setup();
    await setRunCap(manager, agent.id, CAP);
    useScriptedModel(s, recallThenAnswer("Never said."));
    const runId = await chat(workspaceId, starter, agent.id);
    const approval = await suspension(s.db, runId);
    const listAs = async (user: Person) =>
      ((await (await listRoute(jsonRequest("/api/approvals?status=pending", { cookie: await sessionCookie(s, user) }))).json()).approvals as { id: string; preview: { title: string } }[]).find(
        (a) => a.id === approval.id,
      );
    expect((await listAs(starter))?.preview.title).toBe(`@${agent.handle}'s run has reached its spending cap; may it spend as much again?`);
    expect((await listAs(manager))?.preview.title).toContain("$0.0105 of its $0.0100 cap");
    expect((await decide(manager, approval.id, "reject")).status).toBe(200);
    await waitForRun(s.db, runId);
  });

  it("rejected (from the batch route): the run ends unprocessable:budget_exceeded with a sentence, and keeps the text it wrote", async () => {
    const { s, workspaceId, manager, starter, agent } = await setup();
    await setRunCap(manager, agent.id, CAP);
    const model = useScriptedModel(s, recallThenAnswer("Never said."));
    const runId = await chat(workspaceId, starter, agent.id);
    const approval = await suspension(s.db, runId);
    const res = await batchRoute(
      jsonRequest("/api/approvals/decisions", { method: "POST", cookie: await sessionCookie(s, manager), body: { ids: [approval.id], decision: "reject", reason: "Enough for today" } }),
    );
    expect(res.status).toBe(200);
    expect((await res.json()).results).toEqual([{ id: approval.id, status: "rejected" }]);
    const events = await waitForRun(s.db, runId);
    const failed = events.at(-1)!;
    expect(failed.type).toBe("run_failed");
    expect(failed.payload).toMatchObject({ code: "unprocessable:budget_exceeded" });
    expect((failed.payload as { message: string }).message).toBe(
      `@${agent.handle}'s run reached its spending cap and a manager decided it may not spend more (“Enough for today”), so the run stopped before its next model call. What the run wrote so far is kept.`,
    );
    expect(model.requests).toHaveLength(1);
    expect(await getRunRow(s.db, runId)).toMatchObject({ state: "failed", errorCode: "unprocessable:budget_exceeded", capRaisedCredits: 0 });
    expect(await replyOf(runId)).toBe("Part one. ");
  });

  it("expired: the sweeper ends the run as a rejection does, keeping its text", async () => {
    const { s, workspaceId, manager, starter, agent } = await setup();
    await setRunCap(manager, agent.id, CAP);
    useScriptedModel(s, recallThenAnswer("Never said."));
    const runId = await chat(workspaceId, starter, agent.id);
    const approval = await suspension(s.db, runId);
    await s.db.update(approvals).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(approvals.id, approval.id));
    const swept = await s.runtime.sweep();
    expect(swept.expired).toBeGreaterThanOrEqual(1);
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.payload).toMatchObject({ code: "unprocessable:budget_exceeded", message: expect.stringContaining("nobody decided in time whether it may spend more") });
    expect((await s.db.select().from(approvals).where(eq(approvals.id, approval.id)))[0]?.status).toBe("expired");
    expect(await replyOf(runId)).toBe("Part one. ");
    // A decision after the expiry is a conflict, and changes nothing.
    expect((await decide(manager, approval.id, "approve")).status).toBe(409);
  });

  it("no cap, no question: with the cap removed the same run spends on without asking", async () => {
    const { s, workspaceId, manager, starter, agent } = await setup();
    await setRunCap(manager, agent.id, CAP);
    await setRunCap(manager, agent.id, null);
    useScriptedModel(s, recallThenAnswer("Done."));
    const runId = await chat(workspaceId, starter, agent.id);
    expect((await waitForRun(s.db, runId)).at(-1)?.type).toBe("run_completed");
    expect(await s.db.select().from(approvals).where(eq(approvals.runId, runId))).toHaveLength(0);
  });

  it("a mission past its cap asks in its own words; approved, its cap is raised and it finishes; rejected, its step ends budget_exceeded", async () => {
    const { s, manager, starter, agent } = await setup();
    const cookie = await sessionCookie(s, manager);
    const crew = await createCrewRoute(
      jsonRequest("/api/crews", { method: "POST", cookie, body: { name: "Launch crew", nodes: [{ id: "writer", role: "writer", agentHandle: agent.handle }], edges: [] } }),
    );
    expect(crew.status).toBe(201);
    const crewId = ((await crew.json()) as { id: string }).id;
    const start = async () => {
      const res = await startMissionRoute(
        jsonRequest(`/api/crews/${crewId}/missions`, { method: "POST", cookie: await sessionCookie(s, starter), body: { goal: "Write the launch note", capCredits: CAP } }),
        params({ id: crewId }),
      );
      expect(res.status).toBe(202);
      return ((await res.json()) as { missionId: string }).missionId;
    };
    const nodeRunOf = (missionId: string) =>
      settle(async () => (await s.db.select({ id: agentRuns.id }).from(agentRuns).where(eq(agentRuns.missionRunId, missionId)))[0]?.id);
    const missionOf = async (missionId: string) => ((await (await missionRoute(jsonRequest(`/api/missions/${missionId}`, { cookie }), params({ id: missionId }))).json()) as { mission: { state: string; capCredits: number | null } }).mission;

    useScriptedModel(s, [...recallThenAnswer("The note."), ...recallThenAnswer("Never said.")]);
    const approvedId = await start();
    const runId = await nodeRunOf(approvedId);
    const approval = await suspension(s.db, runId);
    expect(approval).toMatchObject({ category: "budget", tool: "budget:continue", input: { scope: "mission", missionId: approvedId } });
    expect((approval.preview as { title: string }).title).toBe("The mission “Launch crew” has spent $0.0105 of its $0.0100 cap; continue with another $0.0100?");
    expect((await decide(starter, approval.id, "approve")).status).toBe(403);
    expect((await decide(manager, approval.id, "approve")).status).toBe(200);
    const done = await settle(async () => {
      const m = await missionOf(approvedId);
      return m.state === "succeeded" ? m : null;
    });
    expect(done.capCredits).toBe(2 * CAP);
    expect((await s.db.select().from(missionRuns).where(eq(missionRuns.id, approvedId)))[0]).toMatchObject({ capCredits: CAP, capRaisedCredits: CAP });

    const rejectedId = await start();
    const rejectedRun = await nodeRunOf(rejectedId);
    const second = await suspension(s.db, rejectedRun);
    expect((await decide(manager, second.id, "reject")).status).toBe(200);
    const events = await waitForRun(s.db, rejectedRun);
    expect(events.at(-1)?.payload).toMatchObject({ code: "unprocessable:budget_exceeded", message: expect.stringMatching(/^The mission “Launch crew” reached its spending cap/) });
    await settle(async () => (await missionOf(rejectedId)).state === "failed");
  });
});
