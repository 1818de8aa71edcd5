import { canReadRun, canReadChat, canSeeSpend, type RunFacts, type Viewer } from "./access";
import { CAP_TOOL, capAboutOfQuestion, capPreviewWithoutFigures, capRequestInputSchema } from "../billing/cap-words";

/**
 * What is left of a record about a run the viewer may not open: the fact that
 * something happened, never what was said or where to find it.
 */

/** Ids that lead into a run or a chat; never handed to someone who may not open it. */
const LINK_KEYS = new Set(["runId", "stepId", "sessionId", "messageId", "replyMessageId", "userMessageId"]);

/**
 * Payload keys that stay on a feed item about a private run (who, what kind,
 * how it ended). Anything else, above all text a person typed, is dropped: a
 * list of what may stay, so a field added later is private until named here.
 */
const SAFE_PAYLOAD_KEYS = new Set([
  "agent",
  "trigger",
  "hop",
  "state",
  "code",
  "from",
  "to",
  "room",
  "recipients",
  "reply",
  "tool",
  "title",
  "category",
  "status",
  "inputEdited",
  "taint",
  "limit",
]);

/**
 * Agent-to-agent messages are the world's: the recipient's turn (visible to
 * every member) carries the same text. So the message text stays on them,
 * while the ids of the private run that sent it go.
 */
const WORLD_TEXT_KINDS = new Set(["agent_message", "room_post"]);

export interface FeedItemLike {
  kind: string;
  runId: string | null;
  stepId: string | null;
  payload: Record<string, unknown>;
}

/**
 * The feed item as this viewer may see it. `run` is the run the item is
 * about; a run that cannot be found is treated as one the viewer may not open.
 */
export function feedItemForViewer<T extends FeedItemLike>(viewer: Viewer, item: T, run: RunFacts | undefined): T {
  if (!item.runId || (run && canReadRun(viewer, run))) return item;
  const payload: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item.payload)) {
    if (LINK_KEYS.has(key)) continue;
    if (SAFE_PAYLOAD_KEYS.has(key) || (key === "text" && WORLD_TEXT_KINDS.has(item.kind))) payload[key] = value;
  }
  return { ...item, runId: null, stepId: null, payload };
}

export interface ApprovalLike {
  runId: string | null;
  stepId: string | null;
  sessionId: string | null;
  taintSources: { source: string; stepId: string | null }[];
  /** The chat that began the chain, and the person it belongs to (who the run acts for). */
  originSessionId?: string | null;
  onBehalfOfUserId?: string | null;
}

/**
 * Approvals are shown to every member, but the way into the conversation
 * behind one (run, step, chat) only to those who may open that run.
 */
export type ApprovalView<T extends ApprovalLike> = Omit<T, "runId" | "stepId" | "sessionId"> & {
  runId: string | null;
  stepId: string | null;
  sessionId: string | null;
  canOpenRun: boolean;
};

export function approvalForViewer<T extends ApprovalLike>(viewer: Viewer, original: T, run: RunFacts): ApprovalView<T> {
  const approval = capFiguresForViewer(viewer, original);
  // The chat that began a chain is its owner's, even when the asking run (an agent's) is open to all.
  const originOpen = !approval.originSessionId || canReadChat(viewer, { userId: approval.onBehalfOfUserId ?? null });
  const origin = originOpen ? {} : { originSessionId: null };
  if (canReadRun(viewer, run)) return { ...approval, ...origin, canOpenRun: true };
  return {
    ...approval,
    ...origin,
    runId: null,
    stepId: null,
    sessionId: null,
    taintSources: approval.taintSources.map((t) => ({ source: t.source, stepId: null })),
    canOpenRun: false,
  };
}

/** A run link (e.g. on an agent message) kept only when the viewer may open that run. */
export function runLinkForViewer(viewer: Viewer, runId: string | null, run: RunFacts | undefined): string | null {
  if (!runId) return null;
  return run && canReadRun(viewer, run) ? runId : null;
}

/** Credits are spend: left out (null) for viewers who may not see spend. */
export function creditsForViewer(viewer: Pick<Viewer, "role">, credits: number): number | null {
  return canSeeSpend(viewer) ? credits : null;
}

/**
 * A run event as this viewer may receive it: a usage event keeps its tokens but loses its credits for members, and a
 * request to go past a cap its figures.
 */
export function runEventForViewer<E extends { type: string; payload: unknown }>(viewer: Pick<Viewer, "role">, event: E): E {
  if (canSeeSpend(viewer)) return event;
  const payload = event.payload as Record<string, unknown>;
  if (event.type === "usage") return { ...event, payload: { ...payload, credits: null } };
  if (event.type === "approval_required" && payload.tool === CAP_TOOL) return { ...event, payload: { ...payload, preview: capPreviewWithoutFigures(capAboutOfQuestion(payload.preview)) } };
  return event;
}

/** A request to go past a cap, as someone who may not see spend reads it: what it asks, without the figures. */
function capFiguresForViewer<T extends ApprovalLike>(viewer: Pick<Viewer, "role">, approval: T): T {
  const a = approval as T & { tool?: string; input?: unknown; preview?: unknown };
  if (a.tool !== CAP_TOOL || canSeeSpend(viewer)) return approval;
  const parsed = capRequestInputSchema.safeParse(a.input);
  const about = parsed.success ? parsed.data : capAboutOfQuestion(a.preview);
  return { ...approval, input: { scope: about.scope, subject: about.subject }, preview: capPreviewWithoutFigures(about) };
}
