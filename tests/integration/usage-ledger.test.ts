import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { chargeUsage } from "../../lib/billing/ledger";
import { updatePrices } from "../../lib/billing/price-book";
import { reconcileKey, reconcileUsage } from "../../lib/runs/reconcile";
import { rowsOf } from "../../lib/db/client";
import { usageEvents, usageReconciliations, usageRollupsDaily, usageRollupsHourly } from "../../lib/db/schema";
import { textTurn } from "../../lib/models/scripted";
import { createChat } from "../../lib/chats/chats";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { getRunRow, makeAgent, useScriptedModel, waitForRun } from "../support/runtime";
import { useTestServer } from "../support/server";
import { insertRun, usage } from "../support/usage";


describe("usage ledger", () => {
  const server = useTestServer();

  async function freshWorkspace(name: string) {
    const s = server();
    const owner = await makeUser(s.db);
    const workspace = await makeWorkspace(s.db, name, owner);
    const agent = await makeAgent(s.db, workspace.id);
    const run = await insertRun(s.db, { workspaceId: workspace.id, agentId: agent.id });
    return { s, owner, workspace, agent, run };
  }

  /** Ledger and rollup sums of a workspace, straight from the tables. */
  async function sums(workspaceId: string) {
    const s = server();
    const [ledger] = rowsOf<Record<string, string>>(
      await s.db.execute(sql`select count(*)::text as calls, coalesce(sum(input_tokens),0)::text as input, coalesce(sum(output_tokens),0)::text as output, coalesce(sum(credits),0)::text as credits from ${usageEvents} where workspace_id = ${workspaceId}`),
    );
    const [rollup] = rowsOf<Record<string, string>>(
      await s.db.execute(sql`select coalesce(sum(calls),0)::text as calls, coalesce(sum(input_tokens),0)::text as input, coalesce(sum(output_tokens),0)::text as output, coalesce(sum(credits),0)::text as credits from ${usageRollupsHourly} where workspace_id = ${workspaceId}`),
    );
    const num = (r: Record<string, string> | undefined) => ({ calls: Number(r!.calls), input: Number(r!.input), output: Number(r!.output), credits: Number(r!.credits) });
    return { ledger: num(ledger), rollup: num(rollup) };
  }

  it("workspace prices: claude-sonnet at $2/$10 per Mtok makes 1000 in + 500 out = 7,000 credits; an unknown model at a $1/$4 default = 3,000, flagged", async () => {
    const { s, owner, workspace, agent, run } = await freshWorkspace("Priced");
    const charge = (model: string, key: string) =>
      chargeUsage(s.db, { workspaceId: workspace.id, agentId: agent.id, source: { kind: "run", runId: run.id }, model, usage: usage(1000, 500), idempotencyKey: key });
    // Before: the built-in list ($3/$15 → 3,000 + 7,500) and the built-in default, flagged.
    expect(await charge("claude-sonnet-4-6", `p-${workspace.id}-1`)).toEqual({ charged: true, credits: 10_500, unpriced: false });
    expect(await charge("mystery-1", `p-${workspace.id}-2`)).toEqual({ charged: true, credits: 10_500, unpriced: true });
    await updatePrices(s.db, workspace.id, owner.id, {
      prices: [{ model: "claude-sonnet-4", input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 }],
      defaultPrice: { input: 1, output: 4, cacheRead: 0, cacheWrite: 0 },
    });
    expect(await charge("claude-sonnet-4-6", `p-${workspace.id}-3`)).toEqual({ charged: true, credits: 7_000, unpriced: false });
    expect(await charge("mystery-1", `p-${workspace.id}-4`)).toEqual({ charged: true, credits: 3_000, unpriced: true });
    // 1000 cache reads at $0.20 per Mtok = 200 credits.
    const cached = await chargeUsage(s.db, {
      workspaceId: workspace.id,
      agentId: agent.id,
      source: { kind: "judge", id: "judge-1" },
      model: "claude-sonnet-4-6",
      usage: usage(0, 0, 1000, 0),
      idempotencyKey: `p-${workspace.id}-5`,
    });
    expect(cached.credits).toBe(200);
    const rows = await s.db.select().from(usageEvents).where(eq(usageEvents.workspaceId, workspace.id));
    expect(rows.map((r) => [r.credits, r.unpriced]).sort()).toEqual([[10_500, 0], [10_500, 1], [200, 0], [3_000, 1], [7_000, 0]].sort());
    const judge = rows.find((r) => r.sourceKind === "judge")!;
    expect(judge).toMatchObject({ runId: null, sourceId: "judge-1" });
    const [flagged] = await s.db
      .select({ unpriced: sql<number>`sum(${usageRollupsHourly.unpricedCalls})::int` })
      .from(usageRollupsHourly)
      .where(eq(usageRollupsHourly.workspaceId, workspace.id));
    expect(flagged!.unpriced).toBe(2);
    // Another workspace keeps the built-in prices.
    const other = await freshWorkspace("Unpriced");
    const elsewhere = await chargeUsage(s.db, {
      workspaceId: other.workspace.id,
      agentId: other.agent.id,
      source: { kind: "door", id: "d" },
      model: "claude-sonnet-4-6",
      usage: usage(1000, 500),
      idempotencyKey: `p-${other.workspace.id}-1`,
    });
    expect(elsewhere.credits).toBe(10_500);
  });

  it("60 concurrent charges (50 distinct keys) × (1000 in, 500 out) at $3/$15 per Mtok = 525,000 credits: the hourly rollup equals the raw sum", async () => {
    const { s, workspace, agent, run } = await freshWorkspace("Concurrent");
    const at = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 60_000);
    const keys = Array.from({ length: 60 }, (_, i) => `c-${workspace.id}-${i % 50}`);
    const results = await Promise.all(
      keys.map((key) =>
        chargeUsage(s.db, { workspaceId: workspace.id, agentId: agent.id, source: { kind: "run", runId: run.id }, model: "claude-sonnet-4-6", usage: usage(1000, 500), idempotencyKey: key, occurredAt: at }),
      ),
    );
    expect(results.filter((r) => r.charged)).toHaveLength(50);
    const rollups = await s.db.select().from(usageRollupsHourly).where(eq(usageRollupsHourly.workspaceId, workspace.id));
    expect(rollups).toHaveLength(1);
    expect(rollups[0]).toMatchObject({ calls: 50, inputTokens: 50_000, outputTokens: 25_000, credits: 525_000, bucket: new Date(at.getTime() - 60_000) });
    const { ledger, rollup } = await sums(workspace.id);
    expect(ledger).toEqual({ calls: 50, input: 50_000, output: 25_000, credits: 525_000 });
    expect(rollup).toEqual(ledger);
    // The daily rollup took the same 50 increments under the same concurrency.
    const daily = await s.db.select().from(usageRollupsDaily).where(eq(usageRollupsDaily.workspaceId, workspace.id));
    expect(daily).toHaveLength(1);
    expect(daily[0]).toMatchObject({ calls: 50, inputTokens: 50_000, outputTokens: 25_000, credits: 525_000, day: new Date(Math.floor(at.getTime() / 86_400_000) * 86_400_000) });
  });

  it("concurrent charges across hours, agents, models and sources: every rollup group equals its ledger group", async () => {
    const { s, workspace, agent, run } = await freshWorkspace("Mixed");
    const second = await makeAgent(s.db, workspace.id);
    const base = Math.floor(Date.now() / 3_600_000) * 3_600_000;
    await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        chargeUsage(s.db, {
          workspaceId: workspace.id,
          agentId: i % 5 === 0 ? null : i % 2 ? agent.id : second.id,
          source: i % 5 === 0 ? { kind: "governor", id: `g${i}` } : { kind: "run", runId: run.id },
          model: i % 3 ? "claude-haiku-4-5" : "offline",
          usage: usage(100 + i, 10 + i),
          idempotencyKey: `m-${workspace.id}-${i}`,
          occurredAt: new Date(base - (i % 4) * 3_600_000 + 1000),
        }),
      ),
    );
    const grouped = (table: "usage_events" | "usage_rollups_hourly") =>
      s.db.execute(
        sql.raw(
          table === "usage_events"
            ? `select date_trunc('hour', created_at, 'UTC') as bucket, agent_id, model, source_kind, count(*)::int as calls, sum(input_tokens)::int as input, sum(output_tokens)::int as output, sum(credits)::int as credits from usage_events where workspace_id = '${workspace.id}' group by 1,2,3,4 order by 1,2,3,4`
            : `select bucket, agent_id, model, source_kind, calls::int as calls, input_tokens::int as input, output_tokens::int as output, credits::int as credits from usage_rollups_hourly where workspace_id = '${workspace.id}' order by 1,2,3,4`,
        ),
      );
    const fromLedger = rowsOf(await grouped("usage_events"));
    expect(fromLedger.length).toBeGreaterThan(8);
    expect(rowsOf(await grouped("usage_rollups_hourly"))).toEqual(fromLedger);
  });

  describe("reconciliation", () => {
    it("fills a run whose charge failed with one explicit row (1000 in, 500 out at $3/$15 = 10,500 credits), once", async () => {
      const s = server();
      const owner = await makeUser(s.db);
      const workspace = await makeWorkspace(s.db, "Reconciled", owner);
      const agent = await makeAgent(s.db, workspace.id);
      useScriptedModel(s, [textTurn(["hello"], { inputTokens: 1000, outputTokens: 500 })]);
      const session = await createChat(s.db, { workspaceId: workspace.id, userId: owner.id, agent: { id: agent.id } });
      // The ledger refuses writes while the run charges: billing fails, the run does not.
      await s.db.execute(sql`create or replace function refuse_usage() returns trigger as $$ begin raise exception 'ledger unavailable'; end $$ language plpgsql`);
      await s.db.execute(sql`create trigger refuse_usage before insert on usage_events for each row execute function refuse_usage()`);
      let runId: string;
      try {
        ({ runId } = await s.runtime.startChatRun({ workspaceId: workspace.id, sessionId: session.id, userId: owner.id, text: "hi" }));
        const events = await waitForRun(s.db, runId);
        expect(events.at(-1)?.type).toBe("run_completed");
      } finally {
        await s.db.execute(sql`drop trigger refuse_usage on usage_events`);
      }
      expect(await s.db.select().from(usageEvents).where(eq(usageEvents.runId, runId))).toHaveLength(0);
      expect(await getRunRow(s.db, runId)).toMatchObject({ inputTokens: 1000, outputTokens: 500, credits: 0 });

      const later = new Date(Date.now() + 2 * 60_000);
      // A run that finished less than a minute ago is left for the next pass.
      expect((await reconcileUsage(s.db, { workspaceId: workspace.id })).checked).toBe(0);
      expect(await reconcileUsage(s.db, { workspaceId: workspace.id, now: later })).toMatchObject({ checked: 1, filled: 1, flagged: 0 });
      const rows = await s.db.select().from(usageEvents).where(eq(usageEvents.runId, runId));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ idempotencyKey: reconcileKey(runId), inputTokens: 1000, outputTokens: 500, credits: 10_500, unpriced: 1, agentId: agent.id });
      expect((await getRunRow(s.db, runId)).credits).toBe(10_500);
      const [finding] = await s.db.select().from(usageReconciliations).where(eq(usageReconciliations.runId, runId));
      expect(finding).toMatchObject({ outcome: "filled", runInputTokens: 1000, ledgerInputTokens: 0, ledgerRows: 0, filledCredits: 10_500 });
      // The second pass finds the run balanced: nothing new, nothing charged twice.
      expect(await reconcileUsage(s.db, { workspaceId: workspace.id, now: later })).toMatchObject({ checked: 1, filled: 0, flagged: 0 });
      expect(await s.db.select().from(usageEvents).where(eq(usageEvents.runId, runId))).toHaveLength(1);
      const { ledger, rollup } = await sums(workspace.id);
      expect(rollup).toEqual(ledger);
      expect(ledger.credits).toBe(10_500);
    });

    it("flags a run whose ledger holds more than the run (1000 in charged twice by a stray row) and records it once", async () => {
      const s = server();
      const owner = await makeUser(s.db);
      const workspace = await makeWorkspace(s.db, "Flagged", owner);
      const agent = await makeAgent(s.db, workspace.id);
      useScriptedModel(s, [textTurn(["hello"], { inputTokens: 1000, outputTokens: 500 })]);
      const session = await createChat(s.db, { workspaceId: workspace.id, userId: owner.id, agent: { id: agent.id } });
      const { runId } = await s.runtime.startChatRun({ workspaceId: workspace.id, sessionId: session.id, userId: owner.id, text: "hi" });
      await waitForRun(s.db, runId);
      await chargeUsage(s.db, { workspaceId: workspace.id, agentId: agent.id, source: { kind: "run", runId }, model: "scripted", usage: usage(1000, 0), idempotencyKey: `stray-${runId}` });
      const later = new Date(Date.now() + 2 * 60_000);
      expect(await reconcileUsage(s.db, { workspaceId: workspace.id, now: later })).toMatchObject({ checked: 1, filled: 0, flagged: 1 });
      expect(await reconcileUsage(s.db, { workspaceId: workspace.id, now: later })).toMatchObject({ checked: 1, filled: 0, flagged: 0 });
      const findings = await s.db.select().from(usageReconciliations).where(eq(usageReconciliations.runId, runId));
      expect(findings).toHaveLength(1);
      expect(findings[0]).toMatchObject({ outcome: "flagged", runInputTokens: 1000, ledgerInputTokens: 2000, ledgerRows: 2, filledCredits: 0 });
      expect(findings[0]!.reason).toMatch(/1000 input and 0 output tokens more/);
      expect(await s.db.select().from(usageEvents).where(eq(usageEvents.runId, runId))).toHaveLength(2);
    });

    it("the periodic pass moves a shared cursor and rechecks only a short overlap", async () => {
      const s = server();
      const later = new Date(Date.now() + 2 * 60_000);
      const first = await reconcileUsage(s.db, { now: later });
      expect(first.from).toBe(new Date(0).toISOString());
      const second = await reconcileUsage(s.db, { now: new Date(later.getTime() + 60_000) });
      expect(new Date(second.from).getTime()).toBe(new Date(first.to).getTime() - 10 * 60_000);
      expect(second.filled).toBe(0);
      // The two runs of the tests above: one balanced since its gap was filled, one already flagged.
      expect(first).toMatchObject({ filled: 0, flagged: 0 });
      expect(first.checked).toBeGreaterThanOrEqual(2);
    });
  });
});
