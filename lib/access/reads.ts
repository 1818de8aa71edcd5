import { and, eq, isNull, ne, or, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, sessions, type AgentRun } from "../db/schema";
import { AppError } from "../errors";
import { assertCanReadRun, canReadRun, type RunFacts, type Viewer } from "./access";
import { can } from "./capabilities";
import { approvalForViewer, feedItemForViewer, type ApprovalLike, type FeedItemLike } from "./redact";
import { runFactsByIds, runFactsCache } from "./run-facts-cache";

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
  // The facts the rule needs never change: the process's cache reads them once per run (or knows them from the start).
  const run = await runFactsCache(db).get(workspaceId, runId);
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
export function ownChatsWhere(viewer: Viewer): SQL {
  return eq(sessions.userId, viewer.userId);
}

/**
 * The versions of an agent's files a viewer may read: a version a private chat wrote stays with its person and those
 * who read every chat (as the chat's run does, even once the chat is deleted); every other version is the agent's,
 * for every member.
 */
export function canReadFileVersion(viewer: Viewer, version: { privateTo: string | null }): boolean {
  return version.privateTo === null || version.privateTo === viewer.userId || can(viewer.role, "chats.readAll");
}
