import { and, eq, like } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getBudgets, updateBudgets } from "../../lib/billing/budgets";
import { runBillingJobs } from "../../lib/billing-jobs";
import { agentRuns, auditLog, messages, usageEvents, usageRollupsHourly } from "../../lib/db/schema";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { createRuntime } from "../../lib/runtime/runtime";
import { addRunUsage } from "../../lib/runs";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import { createChat } from "../../lib/chats/chats";
import { recordQueries } from "../../lib/db/query-count";
import { decideApproval } from "../../lib/safety/approvals";
import { estimateTokens } from "../../lib/models/offline";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { getRunRow, makeAgent, suspension, textOf, useScriptedModel, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";
import { POST as sendRoute } from "../../app/api/sessions/[id]/messages/route";
import { GET as historyRoute } from "../../app/api/sessions/[id]/route";

const calls = { inputTokens: 1000, outputTokens: 500 };
const slackCall = () => toolTurn([{ id: "call_slack", name: "slack.post", input: { channel: "#general", text: "hello" } }], "Posting.", calls);

/**
 * Every path of a run charges each model call exactly once. The scripted
 * model has no price, so it is charged at the built-in default of $3 / $15
 * per million tokens: 1000 in + 500 out = 3,000 + 7,500 = 10,500 credits.
 */
describe("charging runs", () => {
  const server = useTestServer();

  async function setup(name: string) {
    const s = server();
    const owner = await makeUser(s.db);
    const workspace = await makeWorkspace(s.db, name, owner);
    const agent = await makeAgent(s.db, workspace.id);
    const session = await createChat(s.db, { workspaceId: workspace.id, userId: owner.id, agent: { id: agent.id } });
    const start = async (text = "go") => (await s.runtime.startChatRun({ workspaceId: workspace.id, sessionId: session.id, userId: owner.id, text })).runId;
    return { s, owner, workspace, agent, start };
  }

  const ledgerOf = async (runId: string) => server().db.select().from(usageEvents).where(eq(usageEvents.runId, runId));

  const waitForSuspension = (runId: string) => suspension(server().db, runId);

  it("a model call's usage written twice (a retry, a crash between the ledger and the totals) is added to the run's totals once", async () => {
    const { s, start } = await setup("Totals");
    useScriptedModel(s, [textTurn(["Done."], calls)]);
    const runId = await start("hello");
    await waitForRun(s.db, runId);
    const once = await getRunRow(s.db, runId);
    expect(once).toMatchObject({ inputTokens: 1000, outputTokens: 500, modelCalls: 1 });
    await addRunUsage(s.db, runId, { inputTokens: 1000, outputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0, credits: once.credits, callNumber: 0 });
    expect(await getRunRow(s.db, runId)).toMatchObject({ inputTokens: 1000, outputTokens: 500, credits: once.credits, modelCalls: 1 });
    // The next call is counted, its cached tokens too.
    await addRunUsage(s.db, runId, { inputTokens: 10, outputTokens: 5, cacheReadTokens: 900, cacheWriteTokens: 40, credits: 0, callNumber: 1 });
    expect(await getRunRow(s.db, runId)).toMatchObject({ inputTokens: 1010, outputTokens: 505, cacheReadTokens: 900, cacheWriteTokens: 40, modelCalls: 2 });
  });

  it("a resumed run is not charged twice: 2 calls × (1000 in, 500 out) at $3/$15 per Mtok = 21,000 credits, with two racing resumers", async () => {
    const { s, workspace, start } = await setup("Resumed");
    useScriptedModel(s, [slackCall(), textTurn(["Posted."], calls)]);
    const runId = await start("slack #general hello");
    const approval = await waitForSuspension(runId);
    expect((await ledgerOf(runId)).map((r) => r.idempotencyKey)).toEqual([`run:${runId}:call:0`]);
    const reviewer = await makeUser(s.db, workspace.id, "reviewer");
    await decideApproval(s.db, s.bus, s.runtime.deps.tools, { workspaceId: workspace.id, approvalId: approval.id, decider: { userId: reviewer.id, role: "reviewer" }, decision: "approve" });
    const other = createRuntime({ ...s.runtime.deps, instanceId: "another-process" });
    await Promise.all([s.runtime.resumeRun(runId), other.resumeRun(runId), s.runtime.resumeRun(runId)]);
    await Promise.all([s.runtime.drain(), other.drain()]);
    expect((await waitForRun(s.db, runId)).at(-1)?.type).toBe("run_completed");
    // The sweeper finds nothing left to resume, so nothing is charged again.
    await s.runtime.sweep();
    const rows = await ledgerOf(runId);
    expect(rows.map((r) => r.idempotencyKey).sort()).toEqual([`run:${runId}:call:0`, `run:${runId}:call:1`]);
    expect(rows.map((r) => r.credits)).toEqual([10_500, 10_500]);
    const run = await getRunRow(s.db, runId);
    expect(run).toMatchObject({ modelCalls: 2, inputTokens: 2000, outputTokens: 1000, credits: 21_000 });
    const [rollup] = await s.db.select().from(usageRollupsHourly).where(eq(usageRollupsHourly.workspaceId, workspace.id));
    expect(rollup).toMatchObject({ calls: 2, credits: 21_000 });
  });

  it("a cancelled run is charged its partial usage: 1000 in reported ($3) + the streamed text's estimated out tokens ($15 per Mtok)", async () => {
    const { s, owner, workspace, start } = await setup("Cancelled");
    // The provider reports its input tokens up front; the output count never arrives because the stream is cut.
    useScriptedModel(s, [{ delayMs: 15, events: [{ type: "usage", usage: { inputTokens: 1000 } }, ...Array.from({ length: 300 }, () => ({ type: "text" as const, delta: "tick " }))] }]);
    const runId = await start("go on");
    for (let i = 0; i < 200 && textOf(await readRunEvents(s.db, runId, 0)).length < 40; i++) await new Promise((r) => setTimeout(r, 20));
    await s.runtime.cancelRun(workspace.id, runId, { userId: owner.id, role: "owner" });
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.type).toBe("run_cancelled");
    const streamed = textOf(events);
    expect(streamed.length).toBeGreaterThan(0);
    const out = estimateTokens(streamed);
    const rows = await ledgerOf(runId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ inputTokens: 1000, outputTokens: out, credits: 1000 * 3 + out * 15 });
    expect(await getRunRow(s.db, runId)).toMatchObject({ state: "cancelled", inputTokens: 1000, outputTokens: out, credits: 3000 + out * 15 });
    const usageEvent = events.find((e) => e.type === "usage");
    expect(usageEvent?.payload).toMatchObject({ credits: 3000 + out * 15, estimated: true });
  });

  it("an agent budget of 10,500 credits: the first call (1000 in, 500 out at $3/$15) uses it up and the next model call is refused", async () => {
    const { s, owner, workspace, agent, start } = await setup("Capped agent");
    await updateBudgets(s.db, workspace.id, owner.id, { agents: [{ agentId: agent.id, monthlyBudgetCredits: 10_500 }] });
    const model = useScriptedModel(s, [toolTurn([{ id: "r1", name: "memory.recall", input: { query: "x" } }], "", calls), textTurn(["never said"], calls)]);
    const runId = await start("recall x");
    const events = await waitForRun(s.db, runId);
    const failed = events.at(-1)!;
    expect(failed.type).toBe("run_failed");
    expect(failed.payload).toMatchObject({ code: "unprocessable:budget_exceeded" });
    // The run's error is read by everyone who may read the run: it names the budget, never its figures.
    expect((failed.payload as { message: string }).message).toMatch(new RegExp(`^@${agent.handle} has used its monthly budget for `));
    expect((failed.payload as { message: string }).message).not.toMatch(/\$|\d\.\d/);
    expect(model.requests).toHaveLength(1);
    expect((await ledgerOf(runId)).map((r) => r.credits)).toEqual([10_500]);
    expect(await getRunRow(s.db, runId)).toMatchObject({ state: "failed", errorCode: "unprocessable:budget_exceeded", credits: 10_500 });

    // The next message is refused before any run is made; raising the budget lets it through.
    const runsBefore = (await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id))).length;
    await expect(start("again")).rejects.toMatchObject({ code: "unprocessable:budget_exceeded" });
    expect((await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id))).length).toBe(runsBefore);
    await updateBudgets(s.db, workspace.id, owner.id, { agents: [{ agentId: agent.id, monthlyBudgetCredits: 100_000 }] });
    useScriptedModel(s, [textTurn(["fine"], calls)]);
    const allowed = await start("hello");
    expect((await waitForRun(s.db, allowed)).at(-1)?.type).toBe("run_completed");

    // One audit entry per level for this agent this month, however many calls were refused.
    const audits = await s.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.workspaceId, workspace.id), like(auditLog.action, "budget.%"), eq(auditLog.targetId, agent.id)));
    expect(audits.map((a) => a.action).sort()).toEqual(["budget.exceeded", "budget.half_used", "budget.warning"]);
    const overview = await getBudgets(s.db, workspace.id);
    expect(overview.agents.find((a) => a.agentId === agent.id)).toMatchObject({ budgetCredits: 100_000, spentCredits: 21_000, state: "ok" });
  });

  it("a spent budget refuses a person's next message before anything is stored, and the chat says why; a raised budget lets it through", async () => {
    const { s, owner, workspace, agent, start } = await setup("Spent before sending");
    await updateBudgets(s.db, workspace.id, owner.id, { agents: [{ agentId: agent.id, monthlyBudgetCredits: 10_500 }] });
    useScriptedModel(s, [textTurn(["spent it"], calls)]);
    const first = await start("first");
    expect((await waitForRun(s.db, first)).at(-1)?.type).toBe("run_completed");
    const [chat] = await s.db.select({ sessionId: agentRuns.sessionId }).from(agentRuns).where(eq(agentRuns.id, first));
    const sessionId = chat!.sessionId!;
    const cookie = await sessionCookie(s, owner);
    const count = async () => ({
      runs: (await s.db.select().from(agentRuns).where(eq(agentRuns.sessionId, sessionId))).length,
      messages: (await s.db.select().from(messages).where(eq(messages.sessionId, sessionId))).length,
    });
    const before = await count();

    const refused = await sendRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, workspace: workspace.slug, body: { text: "again" } }), params({ id: sessionId }));
    expect(refused.status).toBe(422);
    const body = await refused.json();
    expect(body.code).toBe("unprocessable:budget_exceeded");
    expect(body.message).toMatch(new RegExp(`^@${agent.handle} has used its monthly budget for \\w+ \\d{4}: it cannot answer until a manager raises the budget or the month ends\\.$`));
    expect(await count()).toEqual(before);

    // The chat says so before anyone writes.
    const history = await (await historyRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie, workspace: workspace.slug }), params({ id: sessionId }))).json();
    expect(history.budgetStop).toBe(body.message);

    await updateBudgets(s.db, workspace.id, owner.id, { agents: [{ agentId: agent.id, monthlyBudgetCredits: 100_000 }] });
    const clear = await (await historyRoute(jsonRequest(`/api/sessions/${sessionId}`, { cookie, workspace: workspace.slug }), params({ id: sessionId }))).json();
    expect(clear.budgetStop).toBeNull();
    useScriptedModel(s, [textTurn(["fine"], calls)]);
    const taken = await sendRoute(jsonRequest(`/api/sessions/${sessionId}/messages`, { method: "POST", cookie, workspace: workspace.slug, body: { text: "again" } }), params({ id: sessionId }));
    expect(taken.status).toBe(202);
  });

  it("the budgets come with the run's first read: with none set no budget or spend is read before its first call; a cap set between runs refuses the next", async () => {
    const { s, owner, workspace, agent, start } = await setup("Limits with the run");
    const limitsRead = (queries: string[]) => queries.filter((q) => /from "agents" left join "workspace_budgets"/.test(q));
    const spendRead = (queries: string[]) => queries.filter((q) => /from "usage_rollups_hourly"/.test(q));
    const runAndRecord = (text: string) =>
      recordQueries(async () => {
        const runId = await start(text);
        return { runId, events: await waitForRun(s.db, runId) };
      });

    useScriptedModel(s, [textTurn(["First."], calls)]);
    const free = await runAndRecord("hello");
    expect(free.result.events.at(-1)?.type).toBe("run_completed");
    // The statements naming the budgets are the chat run's own start (which reads a month's spend only where a budget
    // is set) and the run's first read; no other reads a limit or a spend.
    const budgetStatements = free.queries.filter((q) => /"workspace_budgets"/.test(q));
    expect(budgetStatements).toHaveLength(2);
    expect(budgetStatements[0]).toMatch(/insert into "agent_runs"/);
    expect(budgetStatements[1]).toMatch(/from "agent_runs" left join "agents"/);
    const others = free.queries.filter((q) => !/insert into "agent_runs"/.test(q));
    expect(limitsRead(others)).toHaveLength(0);
    expect(spendRead(others)).toHaveLength(0);

    // 10,500 credits are spent: a cap of 10,000 set now refuses the next message in the chat run's own statement, before
    // any run or model call.
    await updateBudgets(s.db, workspace.id, owner.id, { agents: [{ agentId: agent.id, monthlyBudgetCredits: 10_000 }] });
    const model = useScriptedModel(s, [textTurn(["never said"], calls)]);
    const capped = await recordQueries(() => start("again").catch((e: unknown) => e));
    expect(capped.result).toMatchObject({ code: "unprocessable:budget_exceeded" });
    expect(model.requests).toHaveLength(0);
    expect(capped.queries.filter((q) => /insert into "agent_runs"/.test(q))).toHaveLength(1);
    expect((await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id))).length).toBe(1);
  });

  it("a workspace cap set while a run waits for approval stops its next model call once it resumes: 10,500 spent of 10,000", async () => {
    const { s, workspace, owner, start } = await setup("Capped while waiting");
    const model = useScriptedModel(s, [slackCall(), textTurn(["Posted."], calls)]);
    const runId = await start("slack #general hello");
    const approval = await waitForSuspension(runId);
    await updateBudgets(s.db, workspace.id, owner.id, { workspace: 10_000 });
    const reviewer = await makeUser(s.db, workspace.id, "reviewer");
    await decideApproval(s.db, s.bus, s.runtime.deps.tools, { workspaceId: workspace.id, approvalId: approval.id, decider: { userId: reviewer.id, role: "reviewer" }, decision: "approve" });
    await s.runtime.resumeRun(runId);
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.payload).toMatchObject({ code: "unprocessable:budget_exceeded" });
    // The approved post happened (its grant was used); the model was not asked again.
    expect(events.some((e) => e.type === "step_finished" && (e.payload as { tool?: string }).tool === "slack.post")).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect((await ledgerOf(runId)).map((r) => r.credits)).toEqual([10_500]);
  });

  it("a workspace budget of 12,000 credits: 10,500 spent is 87.5 % → one warning, then the cap refuses the second run", async () => {
    const { s, owner, workspace, start } = await setup("Capped workspace");
    await updateBudgets(s.db, workspace.id, owner.id, { workspace: 12_000 });
    useScriptedModel(s, [textTurn(["one"], calls)]);
    expect((await waitForRun(s.db, await start("one"))).at(-1)?.type).toBe("run_completed");
    // Under the cap at the call's start (0 of 12,000), so the call ran; the overview now shows the warning.
    expect((await getBudgets(s.db, workspace.id)).workspace).toMatchObject({ spentCredits: 10_500, state: "warning" });
    useScriptedModel(s, [textTurn(["two"], calls), textTurn(["three"], calls)]);
    expect((await waitForRun(s.db, await start("two"))).at(-1)?.type).toBe("run_completed");
    // 21,000 of 12,000: the third message is refused before its run, and says so without figures.
    const refused = (await start("three").catch((e: unknown) => e)) as { code: string; message: string };
    expect(refused.code).toBe("unprocessable:budget_exceeded");
    expect(refused.message).toMatch(/^This workspace has used its monthly budget for /);
    expect(refused.message).not.toContain("$");
    const audits = await s.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.workspaceId, workspace.id), like(auditLog.action, "budget.%")))
      .orderBy(auditLog.id);
    expect(audits.map((a) => [a.action, a.targetType])).toEqual([
      ["budget.half_used", "workspace"],
      ["budget.warning", "workspace"],
      ["budget.exceeded", "workspace"],
    ]);
  });

  it("a run whose only call crosses 80 % (10,500 of a 12,500 budget = 84 %) is caught by the periodic job: one warning, however often it runs", async () => {
    const { s, owner, workspace, start } = await setup("Crossed by the last call");
    await updateBudgets(s.db, workspace.id, owner.id, { workspace: 12_500 });
    useScriptedModel(s, [textTurn(["one"], calls)]);
    expect((await waitForRun(s.db, await start("one"))).at(-1)?.type).toBe("run_completed");
    const warnings = () => s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, workspace.id), eq(auditLog.action, "budget.warning")));
    // The check before the call saw nothing spent: no alert yet.
    expect(await warnings()).toHaveLength(0);
    await runBillingJobs(s.db);
    await runBillingJobs(s.db);
    const raised = await warnings();
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ targetType: "workspace", targetId: workspace.id, detail: { spentCredits: 10_500, budgetCredits: 12_500, percent: 84 } });
  });
});
