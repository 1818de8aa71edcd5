import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, steps } from "../db/schema";

/**
 * Door activity for the usage report grouped by source. A call through the
 * door makes no model call and so leaves no ledger row: it is counted here, as
 * tool calls of door runs started in the range, with no tokens and no spend.
 */
export async function countDoorCalls(db: Db, workspaceId: string, range: { from: Date; to: Date }): Promise<number> {
  const [row] = await db
    .select({ calls: sql<number>`count(*)::int`.mapWith(Number) })
    .from(steps)
    .innerJoin(agentRuns, eq(agentRuns.id, steps.runId))
    .where(and(eq(steps.workspaceId, workspaceId), eq(agentRuns.trigger, "door"), gte(steps.createdAt, range.from), lt(steps.createdAt, range.to)));
  return row?.calls ?? 0;
}

/** The report's `door` row: door tool calls, zero tokens and zero credits (not part of the ledger's totals). */
export function doorActivityRow(calls: number) {
  return { key: "door", label: "Door calls (tool calls, no model spend)", calls, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, credits: 0, unpricedCalls: 0, computeMs: 0, computeCalls: 0, nominal: false };
}
