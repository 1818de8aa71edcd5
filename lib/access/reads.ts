import { and, eq, inArray, isNull, ne, or, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, sessions, type AgentRun } from "../db/schema";
import { AppError } from "../errors";
import { assertCanReadRun, canReadRun, type RunFacts, type Viewer } from "./access";
import { approvalForViewer, feedItemForViewer, type ApprovalLike, type FeedItemLike } from "./redact";

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

/** `getReadableRun` for callers that only need the answer (an event stream): reads the run's access facts, not the whole row. */
export async function assertReadableRun(db: Db, workspaceId: string, runId: string, viewer: Viewer): Promise<void> {
  const [run] = await db
    .select({ userId: agentRuns.userId, trigger: agentRuns.trigger, sessionId: agentRuns.sessionId, onBehalfOfUserId: agentRuns.onBehalfOfUserId })
    .from(agentRuns)
    .where(and(eq(agentRuns.id, runId), eq(agentRuns.workspaceId, workspaceId)));
  if (!run) throw new AppError("not_found:run");
  assertCanReadRun(viewer, run);
}

/**
 * Approvals as this viewer may see them: every member sees the gated action,
 * but the run, step and chat behind it only if they may open that run.
 */
export async function approvalsForViewer<T extends ApprovalLike & { runId: string }>(db: Db, workspaceId: string, viewer: Viewer, list: T[]) {
  const runs = await runFactsByIds(db, workspaceId, list.map((a) => a.runId));
  // A run that cannot be found is treated as private: the link goes, the approval stays.
  const unknown: RunFacts = { userId: null, trigger: "chat", sessionId: null };
  return list.map((a) => approvalForViewer(viewer, a, runs.get(a.runId) ?? unknown));
}

/** Feed items as this viewer may see them: items about runs they may not open lose their text and ids. */
export async function feedItemsForViewer<T extends FeedItemLike>(db: Db, workspaceId: string, viewer: Viewer, items: T[]): Promise<T[]> {
  const runs = await runFactsByIds(db, workspaceId, items.map((i) => i.runId));
  return items.map((item) => feedItemForViewer(viewer, item, item.runId ? runs.get(item.runId) : undefined));
}

/**
 * The SQL form of `canReadRun` for lists of runs: nothing to add for viewers
 * who read every run; otherwise the world's runs and the viewer's own. Keep in
 * step with `isPrivateRun` (a run is private when a chat started it).
 */
export function readableRunsWhere(viewer: Viewer): SQL | undefined {
  if (canReadRun(viewer, { userId: null, trigger: "chat", sessionId: null })) return undefined;
  return or(and(ne(agentRuns.trigger, "chat"), isNull(agentRuns.sessionId)), eq(agentRuns.userId, viewer.userId));
}

/**
 * The chats a person looks through in their own list and search: only their
 * own, whatever their role (auditors open another member's chat by its link,
 * it never shows up in their list).
 */
export function ownSessionsWhere(viewer: Viewer): SQL {
  return eq(sessions.userId, viewer.userId);
}
