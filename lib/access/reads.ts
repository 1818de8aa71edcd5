import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, type AgentRun } from "../db/schema";
import { AppError } from "../errors";
import { assertCanReadRun, type RunFacts, type Viewer } from "./access";
import { feedItemForViewer, type FeedItemLike } from "./redact";

/** The facts the rules need about each of these runs (one query). */
export async function runFactsByIds(db: Db, workspaceId: string, runIds: (string | null | undefined)[]): Promise<Map<string, RunFacts>> {
  const ids = [...new Set(runIds.filter((id): id is string => !!id))];
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: agentRuns.id, userId: agentRuns.userId, trigger: agentRuns.trigger, sessionId: agentRuns.sessionId })
    .from(agentRuns)
    .where(and(eq(agentRuns.workspaceId, workspaceId), inArray(agentRuns.id, ids)));
  return new Map(rows.map((r) => [r.id, { userId: r.userId, trigger: r.trigger, sessionId: r.sessionId }]));
}

/** A run of the workspace that the viewer may read; `not_found:run` otherwise, whether it exists or not. */
export async function getReadableRun(db: Db, workspaceId: string, runId: string, viewer: Viewer): Promise<AgentRun> {
  const [run] = await db
    .select()
    .from(agentRuns)
    .where(and(eq(agentRuns.id, runId), eq(agentRuns.workspaceId, workspaceId)));
  if (!run) throw new AppError("not_found:run");
  assertCanReadRun(viewer, run);
  return run;
}

/** Feed items as this viewer may see them: items about runs they may not open lose their text and ids. */
export async function feedItemsForViewer<T extends FeedItemLike>(db: Db, workspaceId: string, viewer: Viewer, items: T[]): Promise<T[]> {
  const runs = await runFactsByIds(db, workspaceId, items.map((i) => i.runId));
  return items.map((item) => feedItemForViewer(viewer, item, item.runId ? runs.get(item.runId) : undefined));
}
