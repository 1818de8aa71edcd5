import { and, desc, eq, sql } from "drizzle-orm";
import { addRunCredits } from "./steps";
import { rowsOf, type Db } from "../db/client";
import { agentRuns, agents, usageEvents, usageReconciliationCursor, usageReconciliations } from "../db/schema";
import { chargeUsage } from "../billing/ledger";

/** Runs that finished less than this long ago are left for the next pass (their last charge may still be on its way). */
export const RECONCILE_GRACE_MS = 60_000;
/** Each pass looks this far behind where the last one stopped, for runs whose end committed late. */
const OVERLAP_MS = 10 * 60_000;
const BATCH = 200;
const CURSOR_ID = 1;

export interface ReconcileResult {
  from: string;
  to: string;
  checked: number;
  filled: number;
  flagged: number;
}

interface RunTotals {
  id: string;
  workspace_id: string;
  agent_id: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  finished_at: string | Date;
  /** The exact finish time as text, microseconds included, for the next page's key. */
  finished_key: string;
  ledger_input: number;
  ledger_output: number;
  ledger_rows: number;
}

/** The idempotency key of the row that fills a run's gap: at most one per run, ever. */
export const reconcileKey = (runId: string) => `reconcile:run:${runId}`;

/**
 * Compares each finished run's token totals (agent_runs) with the sum of its
 * ledger rows. A shortfall (a charge that failed) is filled with one explicit
 * ledger row, dated when the run finished and priced like any call; anything
 * else (the ledger holds more, or a filled run falls short again) is flagged.
 * Every gap is recorded once in `usage_reconciliations`.
 *
 * Without `from`, a pass starts where the previous one stopped (minus an
 * overlap) and moves the shared cursor; passes in several processes at once
 * are safe (the fill's idempotency key and the unique finding per run).
 */
export async function reconcileUsage(db: Db, options: { now?: Date; from?: Date; workspaceId?: string } = {}): Promise<ReconcileResult> {
  const now = options.now ?? new Date();
  const to = new Date(now.getTime() - RECONCILE_GRACE_MS);
  const useCursor = !options.from && !options.workspaceId;
  let from = options.from ?? new Date(0);
  if (useCursor) {
    const [cursor] = await db.select().from(usageReconciliationCursor).where(eq(usageReconciliationCursor.id, CURSOR_ID));
    if (cursor) from = new Date(cursor.checkedUntil.getTime() - OVERLAP_MS);
  }
  const result: ReconcileResult = { from: from.toISOString(), to: to.toISOString(), checked: 0, filled: 0, flagged: 0 };
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const batch = await finishedRuns(db, { from, to, after, workspaceId: options.workspaceId });
    for (const run of batch) {
      result.checked += 1;
      const outcome = await settleRun(db, run);
      if (outcome === "filled") result.filled += 1;
      if (outcome === "flagged") result.flagged += 1;
    }
    if (batch.length < BATCH) break;
    const last = batch[batch.length - 1]!;
    after = { at: last.finished_key, id: last.id };
  }
  if (useCursor) {
    await db
      .insert(usageReconciliationCursor)
      .values({ id: CURSOR_ID, checkedUntil: to, lastRunAt: now })
      .onConflictDoUpdate({
        target: usageReconciliationCursor.id,
        set: { checkedUntil: sql`greatest(${usageReconciliationCursor.checkedUntil}, excluded.checked_until)`, lastRunAt: now },
      });
  }
  return result;
}

/** A page of finished runs in order of when they finished, each with the sums of its ledger rows. */
async function finishedRuns(db: Db, q: { from: Date; to: Date; after: { at: string; id: string } | null; workspaceId?: string }): Promise<RunTotals[]> {
  const rows = await db.execute(sql`
    select r.id, r.workspace_id, r.agent_id, r.model, r.input_tokens::float8 as input_tokens, r.output_tokens::float8 as output_tokens,
           r.finished_at, r.finished_at::text as finished_key, l.input::float8 as ledger_input, l.output::float8 as ledger_output, l.rows::int as ledger_rows
    from ${agentRuns} r
    cross join lateral (
      select coalesce(sum(u.input_tokens), 0) as input, coalesce(sum(u.output_tokens), 0) as output, count(*) as rows
      from ${usageEvents} u where u.run_id = r.id
    ) l
    where r.state in ('succeeded', 'failed', 'cancelled')
      and r.finished_at >= ${q.from.toISOString()}::timestamptz and r.finished_at < ${q.to.toISOString()}::timestamptz
      ${q.workspaceId ? sql`and r.workspace_id = ${q.workspaceId}` : sql``}
      ${q.after ? sql`and (r.finished_at, r.id) > (${q.after.at}::timestamptz, ${q.after.id}::uuid)` : sql``}
    order by r.finished_at, r.id
    limit ${BATCH}`);
  return rowsOf<RunTotals>(rows).map((r) => ({
    ...r,
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    ledger_input: Number(r.ledger_input),
    ledger_output: Number(r.ledger_output),
    ledger_rows: Number(r.ledger_rows),
  }));
}

async function settleRun(db: Db, run: RunTotals): Promise<"ok" | "filled" | "flagged" | "known"> {
  const missingIn = run.input_tokens - run.ledger_input;
  const missingOut = run.output_tokens - run.ledger_output;
  if (missingIn === 0 && missingOut === 0) return "ok";
  const finding = {
    workspaceId: run.workspace_id,
    runId: run.id,
    agentId: run.agent_id,
    model: run.model,
    runInputTokens: run.input_tokens,
    runOutputTokens: run.output_tokens,
    ledgerInputTokens: run.ledger_input,
    ledgerOutputTokens: run.ledger_output,
    ledgerRows: run.ledger_rows,
  };
  return db.transaction(async (tx) => {
    if (missingIn >= 0 && missingOut >= 0) {
      const charge = await chargeUsage(tx, {
        workspaceId: run.workspace_id,
        agentId: run.agent_id,
        source: { kind: "run", runId: run.id },
        model: run.model,
        usage: { inputTokens: missingIn, outputTokens: missingOut, cacheReadTokens: 0, cacheWriteTokens: 0 },
        idempotencyKey: reconcileKey(run.id),
        occurredAt: new Date(run.finished_at),
      });
      if (charge.charged) {
        await addRunCredits(tx, run.id, charge.credits);
        await tx
          .insert(usageReconciliations)
          .values({ ...finding, outcome: "filled", reason: `${missingIn} input and ${missingOut} output tokens were not in the ledger`, filledCredits: charge.credits })
          .onConflictDoNothing();
        return "filled";
      }
    }
    const reason =
      missingIn < 0 || missingOut < 0
        ? `The ledger holds ${-Math.min(missingIn, 0)} input and ${-Math.min(missingOut, 0)} output tokens more than the run`
        : `Still ${missingIn} input and ${missingOut} output tokens short after the gap was filled once`;
    const [inserted] = await tx.insert(usageReconciliations).values({ ...finding, outcome: "flagged", reason }).onConflictDoNothing().returning({ id: usageReconciliations.id });
    return inserted ? "flagged" : "known";
  });
}

export interface ReconciliationView {
  lastRunAt: string | null;
  checkedUntil: string | null;
  findings: {
    id: number;
    runId: string;
    agentHandle: string | null;
    model: string;
    outcome: "filled" | "flagged";
    reason: string;
    runInputTokens: number;
    runOutputTokens: number;
    ledgerInputTokens: number;
    ledgerOutputTokens: number;
    filledCredits: number;
    createdAt: string;
  }[];
}

/** The latest findings of a workspace, and when reconciliation last ran. */
export async function listReconciliations(db: Db, workspaceId: string, limit = 100): Promise<ReconciliationView> {
  const [[cursor], rows] = await Promise.all([
    db.select().from(usageReconciliationCursor).where(eq(usageReconciliationCursor.id, CURSOR_ID)),
    db
      .select({ finding: usageReconciliations, agentHandle: agents.handle })
      .from(usageReconciliations)
      .leftJoin(agents, and(eq(agents.id, usageReconciliations.agentId), eq(agents.workspaceId, workspaceId)))
      .where(eq(usageReconciliations.workspaceId, workspaceId))
      .orderBy(desc(usageReconciliations.createdAt), desc(usageReconciliations.id))
      .limit(limit),
  ]);
  return {
    lastRunAt: cursor?.lastRunAt.toISOString() ?? null,
    checkedUntil: cursor?.checkedUntil.toISOString() ?? null,
    findings: rows.map(({ finding: f, agentHandle }) => ({
      id: f.id,
      runId: f.runId,
      agentHandle: agentHandle ?? null,
      model: f.model,
      outcome: f.outcome,
      reason: f.reason,
      runInputTokens: f.runInputTokens,
      runOutputTokens: f.runOutputTokens,
      ledgerInputTokens: f.ledgerInputTokens,
      ledgerOutputTokens: f.ledgerOutputTokens,
      filledCredits: f.filledCredits,
      createdAt: f.createdAt.toISOString(),
    })),
  };
}
