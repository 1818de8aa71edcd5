import { eq } from "drizzle-orm";
import { z } from "zod";
import { agents } from "@/lib/db/schema";
import { route } from "@/lib/http/route";
import { getRun } from "@/lib/runtime/runs";

/** What a run was: who ran it, why, how it ended; its events come from /api/runs/{id}/events. */
export const GET = route({ params: z.object({ id: z.uuid() }) }, async ({ db, workspace, params }) => {
  const run = await getRun(db, workspace.id, params.id);
  const [agent] = await db.select({ id: agents.id, handle: agents.handle, name: agents.name, color: agents.color, model: agents.model }).from(agents).where(eq(agents.id, run.agentId));
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
      credits: run.credits,
      lastSeq: run.lastSeq,
      createdAt: run.createdAt,
      finishedAt: run.finishedAt,
    },
    agent,
  };
});
