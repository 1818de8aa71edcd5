import type { Role } from "../db/schema";
import { AppError } from "../errors";
import { can } from "./capabilities";

/**
 * Who may read or act on what, in one place. Every door (API routes, event
 * streams, pages, feed items, memory recall) asks these functions; none
 * decides on its own. The rules are plain functions of the viewer and a few
 * facts about the object, so they can be tested as a table.
 *
 * Refusals: an object the viewer may not know exists answers `not_found`
 * (exactly like an object of another workspace); an object the viewer can
 * see but may not act on answers `forbidden`.
 */

/** A person in the current workspace. */
export interface Viewer {
  userId: string;
  role: Role;
}

export type RunTrigger = "chat" | "agent_message" | "room_post" | "mission" | "door";

/** What the rules need to know about a chat. */
export interface ChatFacts {
  userId: string | null;
}

/** What the rules need to know about a run. */
export interface RunFacts {
  userId: string | null;
  trigger: RunTrigger;
  sessionId: string | null;
  /** The person the run acts for, when another agent or a room started it on their behalf. */
  onBehalfOfUserId?: string | null;
}

export type MemoryScope = "private" | "shared";

/** What the rules need to know about a memory. */
export interface MemoryFacts {
  scope: MemoryScope;
  ownerUserId: string | null;
}

/** A run belongs to a person's private chat when a chat started it. Agent and room turns are the world's. */
export function isPrivateRun(run: RunFacts): boolean {
  return run.trigger === "chat" || run.sessionId !== null;
}

export function canReadChat(viewer: Viewer, session: ChatFacts): boolean {
  return session.userId === viewer.userId || can(viewer.role, "chats.readAll");
}

/** Only the person who opened a chat writes in it; reviewers read, they do not speak for them. */
export function canWriteChat(viewer: Viewer, session: ChatFacts): boolean {
  return session.userId === viewer.userId;
}

export function canReadRun(viewer: Viewer, run: RunFacts): boolean {
  if (!isPrivateRun(run)) return true;
  return run.userId === viewer.userId || can(viewer.role, "chats.readAll");
}

/** The person behind a run stops it, or a manager; nobody stops what they may not read. */
export function canCancelRun(viewer: Viewer, run: RunFacts): boolean {
  const person = run.onBehalfOfUserId ?? run.userId;
  return canReadRun(viewer, run) && (person === viewer.userId || can(viewer.role, "runs.stopAny"));
}

/**
 * Approvals are the workspace's inbox: every member sees the gated action
 * (tool, preview, input) on purpose. The conversation behind it is another
 * object: see `canOpenApprovalRun`.
 */
export function canReadApproval(_viewer: Viewer): boolean {
  return true;
}

/** Whether an approval may link to its run and chat for this viewer (the run's own rule). */
export function canOpenApprovalRun(viewer: Viewer, run: RunFacts): boolean {
  return canReadRun(viewer, run);
}

/** Four eyes (someone else must approve what you started) is checked at decision time, with the policy. */
export function canDecideApproval(viewer: Pick<Viewer, "role">): boolean {
  return can(viewer.role, "approvals.decide");
}

/** Credits, costs and budgets: reviewers and up. Members see activity, never spend. */
export function canSeeSpend(viewer: Pick<Viewer, "role">): boolean {
  return can(viewer.role, "spend.read");
}

/**
 * Whose memories a run may recall: a private chat recalls its person's own
 * memories with that agent plus the shared ones; any other run (agents, rooms)
 * recalls shared memories only, so nothing said in private reaches the world.
 */
export interface MemoryReader {
  ownerUserId: string | null;
}

export function memoryReaderOf(run: RunFacts): MemoryReader {
  return { ownerUserId: isPrivateRun(run) ? run.userId : null };
}

export function canRecallMemory(reader: MemoryReader, memory: MemoryFacts): boolean {
  if (memory.scope === "shared") return true;
  return reader.ownerUserId !== null && memory.ownerUserId === reader.ownerUserId;
}

/**
 * The scope of a memory written by a run: private to the person in a private
 * chat unless the agent saves it as shared; always shared for agent and room turns.
 */
export function memoryScopeOf(run: RunFacts, shared = false): { scope: MemoryScope; ownerUserId: string | null; sessionId: string | null } {
  const scope: MemoryScope = isPrivateRun(run) && !shared ? "private" : "shared";
  return { scope, ownerUserId: run.userId, sessionId: run.sessionId };
}

export function assertCanReadChat(viewer: Viewer, session: ChatFacts): void {
  if (!canReadChat(viewer, session)) throw new AppError("not_found:session");
}

export function assertCanWriteChat(viewer: Viewer, session: ChatFacts): void {
  assertCanReadChat(viewer, session);
  if (!canWriteChat(viewer, session)) throw new AppError("forbidden:session", "Only the person who started this chat can write in it.");
}

export function assertCanReadRun(viewer: Viewer, run: RunFacts): void {
  if (!canReadRun(viewer, run)) throw new AppError("not_found:run");
}

export function assertCanCancelRun(viewer: Viewer, run: RunFacts): void {
  assertCanReadRun(viewer, run);
  if (!canCancelRun(viewer, run)) throw new AppError("forbidden:run", "Only the person who started this run, or a manager, can stop it.");
}

export function assertCanDecideApproval(viewer: Pick<Viewer, "role">): void {
  if (!canDecideApproval(viewer)) throw new AppError("forbidden:role", "Only reviewers, managers and owners decide approvals.");
}

export function assertCanSeeSpend(viewer: Pick<Viewer, "role">): void {
  if (!canSeeSpend(viewer)) throw new AppError("forbidden:role", "Spend is shown to reviewers, managers and owners.");
}
