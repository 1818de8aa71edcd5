import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { agents, approvals } from "../db/schema";
import type { Viewer } from "../access/access";
import { getReadableRun } from "../access/reads";
import { creditsForViewer } from "../access/redact";

/** What a run was: who ran it, why, how it ended; cost only for those who may see spend. */
export async function getRunSummary(db: Db, workspaceId: string, runId: string, viewer: Viewer) {
  const run = await getReadableRun(db, workspaceId, runId, viewer);
  const [agent] = await db
    .select({ id: agents.id, handle: agents.handle, name: agents.name, color: agents.color, model: agents.model })
    .from(agents)
    .where(eq(agents.id, run.agentId));
  // A suspended run waits for a reviewer, or (a door session between its calls) for nothing at all.
  const pending =
    run.state === "suspended"
      ? await db.select({ id: approvals.id }).from(approvals).where(and(eq(approvals.runId, run.id), eq(approvals.status, "pending"))).limit(1)
      : [];
  return {
    run: {
      id: run.id,
      state: run.state,
      trigger: run.trigger,
      sessionId: run.sessionId,
      threadId: run.threadId,
      roomId: run.roomId,
      inputText: run.inputText,
      hop: run.hop,
      error: run.error,
      errorCode: run.errorCode,
      inputTokens: run.inputTokens,
      outputTokens: run.outputTokens,
      credits: creditsForViewer(viewer, run.credits),
      lastSeq: run.lastSeq,
      createdAt: run.createdAt,
      finishedAt: run.finishedAt,
      awaitingApproval: pending.length > 0,
    },
    agent,
  };
}
