import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { statement } from "../db/statements";
import { agentRuns, agents, messages, runEvents, workspaceBudgets } from "../db/schema";
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
  return (await journalTexts(db, [runId])).get(runId) ?? "";
}

/** The text of several runs' journals, read at once. */
export async function journalTexts(db: Db, runIds: string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>(runIds.map((id) => [id, ""]));
  if (runIds.length === 0) return texts;
  const rows = await db
    .select({ runId: runEvents.runId, payload: runEvents.payload })
    .from(runEvents)
    .where(and(inArray(runEvents.runId, runIds), eq(runEvents.type, "text")))
    .orderBy(runEvents.runId, runEvents.seq);
  for (const r of rows) texts.set(r.runId, texts.get(r.runId)! + String((r.payload as { delta?: unknown }).delta ?? ""));
  return texts;
}

/** Runs whose driving process stopped renewing its lease (it crashed or was killed). */
export async function listOrphanedRuns(db: Db, limit = 50): Promise<string[]> {
  const rows = await db
    .select({ id: agentRuns.id })
    .from(agentRuns)
    .where(and(eq(agentRuns.state, "running"), lt(agentRuns.leaseExpiresAt, sql`now()`), isNull(agentRuns.journalClosedAt)))
    .limit(limit);
  return rows.map((r) => r.id);
}

// One statement: this is the first read of every run a process drives, and the message that started it and the
// workspace's budget come along.
const runWithAgent = statement((db) =>
  db
    .select({ run: agentRuns, agent: agents, userText: messages.content, workspaceBudget: workspaceBudgets.monthlyBudgetCredits })
    .from(agentRuns)
    .leftJoin(agents, eq(agents.id, agentRuns.agentId))
    .leftJoin(messages, eq(messages.id, agentRuns.userMessageId))
    .leftJoin(workspaceBudgets, eq(workspaceBudgets.workspaceId, agentRuns.workspaceId))
    .where(eq(agentRuns.id, sql.placeholder("runId")))
    .prepare("run_with_agent"),
);

/**
 * A run and its agent, as its driver loads them, with the monthly budgets that bear on its first model call
 * (the workspace's and the agent's; null where none is set).
 */
export async function getRunWithAgent(db: Db, runId: string) {
  const [row] = await runWithAgent(db).execute({ runId });
  if (!row) return { run: undefined, agent: undefined, userText: null, budgets: undefined };
  const agent = row.agent ?? undefined;
  const budgets = agent ? { workspace: row.workspaceBudget, agent: agent.monthlyBudgetCredits, handle: agent.handle } : undefined;
  return { run: row.run, agent, userText: row.userText, budgets };
}

/** The stored text of a chat message ("" when there is none). */
export async function messageText(db: Db, messageId: string | null): Promise<string | null> {
  if (!messageId) return null;
  const [row] = await db.select({ content: messages.content }).from(messages).where(eq(messages.id, messageId));
  return row?.content ?? null;
}

/** Steps and model calls a run has counted so far (its row, not a checkpoint). */
export async function runCounters(db: Db, runId: string): Promise<{ stepCount: number; modelCalls: number }> {
  const [row] = await db.select({ stepCount: agentRuns.stepCount, modelCalls: agentRuns.modelCalls }).from(agentRuns).where(eq(agentRuns.id, runId));
  return { stepCount: row?.stepCount ?? 0, modelCalls: row?.modelCalls ?? 0 };
}
