// A running run's progress: its lease, its usage, its steps and its taint, and what a crashed driver left behind.
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { statement } from "../db/statements";
import { agentRuns, executionGrants, steps, type AgentRun, type TaintSource } from "../db/schema";
import { withDbRetry } from "../db/retry";
import { lease } from "./shared";
import type { Usage } from "../models/types";

/** Renews our lease; tells whether the run was cancelled or taken from us meanwhile. */
export async function renewLease(db: Db, runId: string, owner: string): Promise<"ok" | "cancel" | "lost"> {
  try {
    const [row] = await withDbRetry(() =>
      db
        .update(agentRuns)
        .set({ leaseExpiresAt: lease() })
        .where(and(eq(agentRuns.id, runId), eq(agentRuns.claimedBy, owner), eq(agentRuns.state, "running")))
        .returning({ cancelRequestedAt: agentRuns.cancelRequestedAt }),
    );
    if (!row) return "lost";
    return row.cancelRequestedAt ? "cancel" : "ok";
  } catch {
    return "ok";
  }
}

const addUsage = statement((db) =>
  db
    .update(agentRuns)
    .set({
      inputTokens: sql`${agentRuns.inputTokens} + ${sql.placeholder("inputTokens")}`,
      outputTokens: sql`${agentRuns.outputTokens} + ${sql.placeholder("outputTokens")}`,
      cacheReadTokens: sql`${agentRuns.cacheReadTokens} + ${sql.placeholder("cacheReadTokens")}`,
      cacheWriteTokens: sql`${agentRuns.cacheWriteTokens} + ${sql.placeholder("cacheWriteTokens")}`,
      credits: sql`${agentRuns.credits} + ${sql.placeholder("credits")}`,
      modelCalls: sql`${sql.placeholder("modelCalls")}`,
    })
    // Each call is added once: a call counted already (its usage written again after a crash or a retry, when the
    // ledger's idempotency key refused the row) leaves the totals as they are.
    .where(and(eq(agentRuns.id, sql.placeholder("runId")), sql`${agentRuns.modelCalls} < ${sql.placeholder("modelCalls")}`))
    .prepare("add_run_usage"),
);

/** Adds one model call's usage to the run's totals, once per call number. */
export async function addRunUsage(db: Db, runId: string, usage: Usage & { credits: number; callNumber: number }): Promise<void> {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, credits, callNumber } = usage;
  await withDbRetry(() => addUsage(db).execute({ runId, inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, credits, modelCalls: callNumber + 1 }));
}

/**
 * Adds credits charged outside a model call to the run's total: the seconds of its computer, or (reconciliation
 * filling a gap in the ledger, inside its transaction) a call whose charge failed.
 */
export async function addRunCredits(tx: Db, runId: string, credits: number): Promise<void> {
  await tx
    .update(agentRuns)
    .set({ credits: sql`${agentRuns.credits} + ${credits}` })
    .where(eq(agentRuns.id, runId));
}

/** A new step of the run, running, at `position`; the run's step count follows. */
export async function recordStepStart(
  db: Db,
  run: AgentRun,
  step: { position: number; callId: string; tool: string; input: Record<string, unknown> },
): Promise<string> {
  return withDbRetry(() =>
    db.transaction(async (tx) => {
      const [row] = await tx
        .insert(steps)
        .values({
          workspaceId: run.workspaceId,
          runId: run.id,
          messageId: run.replyMessageId,
          position: step.position,
          callId: step.callId,
          tool: step.tool,
          input: step.input,
          status: "running",
          startedAt: new Date(),
        })
        .returning({ id: steps.id });
      await tx.update(agentRuns).set({ stepCount: step.position }).where(eq(agentRuns.id, run.id));
      return row!.id;
    }),
  );
}

export type StepEnd = { status: "succeeded" | "failed" | "refused" | "unconfirmed"; output?: unknown; error?: string | null; taint?: string[] };

export async function recordStepFinish(db: Db, stepId: string, input: Record<string, unknown>, end: StepEnd): Promise<void> {
  await withDbRetry(() =>
    db
      .update(steps)
      .set({ status: end.status, input, output: end.output ?? null, error: end.error ?? null, taint: end.taint ?? [], finishedAt: new Date() })
      .where(eq(steps.id, stepId)),
  );
}

export async function recordTaint(db: Db, runId: string, taint: TaintSource[]): Promise<void> {
  await withDbRetry(() => db.update(agentRuns).set({ taint }).where(eq(agentRuns.id, runId)));
}

/** The steps a crashed driver left behind, with whether their effect was dispatched. */
export async function stepsOfRun(db: Db, runId: string) {
  return db
    .select({
      id: steps.id,
      callId: steps.callId,
      tool: steps.tool,
      status: steps.status,
      output: steps.output,
      error: steps.error,
      taint: steps.taint,
      input: steps.input,
      dispatched: sql<boolean>`exists (select 1 from run_events e where e.run_id = "steps"."run_id" and e.type = 'dispatch_started' and e.payload->>'stepId' = "steps"."id"::text)`,
    })
    .from(steps)
    .where(eq(steps.runId, runId))
    .orderBy(asc(steps.position));
}

/** Whether the grant of an approval was used: the effect it allowed may have happened. */
export async function grantConsumed(db: Db, approvalId: string): Promise<boolean> {
  const [row] = await db.select({ consumedAt: executionGrants.consumedAt }).from(executionGrants).where(eq(executionGrants.approvalId, approvalId));
  return !!row?.consumedAt;
}
