import type { Db } from "../../lib/db/client";
import { agentRuns, type AgentRun } from "../../lib/db/schema";

/** A finished run row written directly (no model involved), for ledger rows to point at and for run statistics. */
export async function insertRun(db: Db, values: { workspaceId: string; agentId: string } & Partial<typeof agentRuns.$inferInsert>): Promise<AgentRun> {
  const [run] = await db
    .insert(agentRuns)
    .values({ model: "scripted", state: "succeeded", ...values })
    .returning();
  return run!;
}

export const usage = (inputTokens: number, outputTokens: number, cacheReadTokens = 0, cacheWriteTokens = 0) => ({
  inputTokens,
  outputTokens,
  cacheReadTokens,
  cacheWriteTokens,
});
