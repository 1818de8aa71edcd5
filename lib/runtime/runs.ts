import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, runEvents } from "../db/schema";
import { AppError } from "../errors";

/** Reads of runs. Every write of a run or its steps is in `run-state.ts`. */

export async function getRun(db: Db, workspaceId: string, runId: string) {
  const [run] = await db
    .select()
    .from(agentRuns)
    .where(and(eq(agentRuns.id, runId), eq(agentRuns.workspaceId, workspaceId)));
  if (!run) throw new AppError("not_found:run");
  return run;
}

/** The reply text as the journal has it: every text delta, in order. */
export async function journalText(db: Db, runId: string): Promise<string> {
  const rows = await db
    .select({ payload: runEvents.payload })
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), eq(runEvents.type, "text")))
    .orderBy(runEvents.seq);
  return rows.map((r) => String((r.payload as { delta?: unknown }).delta ?? "")).join("");
}

/** Runs whose driving process stopped renewing its lease (it crashed or was killed). */
export async function listOrphanedRuns(db: Db, limit = 50): Promise<string[]> {
  const rows = await db
    .select({ id: agentRuns.id })
    .from(agentRuns)
    .where(and(inArray(agentRuns.state, ["queued", "running"]), lt(agentRuns.leaseExpiresAt, sql`now()`), isNull(agentRuns.journalClosedAt)))
    .limit(limit);
  return rows.map((r) => r.id);
}
