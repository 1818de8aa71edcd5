/** A feed item said in words: its headline, quote, tags and tone, and where its run can be read. */
import { taintLabel } from "@/lib/safety/taint";
import { CAP_TOOL } from "@/lib/billing/cap-words";
import type { FeedItem } from "@/lib/feed/feed-schemas";
import { formatDuration } from "../usage/format";

const str = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value : null);
const handle = (value: unknown, fallback = "an agent") => {
  const h = str(value);
  return h ? `@${h}` : fallback;
};

export const triggerLabels: Record<string, string> = {
  chat: "a person in a chat",
  agent_message: "a message from another agent",
  room_post: "a post in a room",
  mission: "a mission",
  door: "a call through the door (MCP)",
};

const approvalCategoryLabels: Record<string, string> = {
  external_send: "sends outside",
  data_write: "changes data",
  code_exec: "runs code",
  spend: "spends money",
  tainted_egress: "passes on untrusted content",
  budget: "spending cap",
};

/** The tool a request names, in the feed's tags: a run at its spending cap names none. */
const toolTag = (tool: unknown): string | null => (tool === CAP_TOOL ? null : str(tool));

export type Tone = "message" | "room" | "run" | "ok" | "fail" | "approval" | "warn" | "muted";

export interface ItemDescription {
  /** One line that says what happened, e.g. "@atlas → @scout". */
  headline: string;
  /** What was said, when something was. */
  quote: string | null;
  /** Small extra facts (tool, category, taint). */
  tags: string[];
  tone: Tone;
}

/** A readable account of one feed item. */
export function describeFeedItem(item: FeedItem, names: { room?: string; started?: FeedItem } = {}): ItemDescription {
  const p = item.payload;
  const text = str(p.text);
  switch (item.kind) {
    case "agent_message": {
      const from = handle(p.from);
      const to = handle(p.to, "another agent");
      return { headline: p.reply === true ? `${from} replied to ${to}` : `${from} → ${to}`, quote: text, tags: [], tone: "message" };
    }
    case "room_post": {
      // Replies do not carry the room's name; the page knows it from the room list.
      const roomName = str(p.room) ?? names.room;
      const room = roomName ? `#${roomName}` : "a room";
      const recipients = Array.isArray(p.recipients) ? p.recipients.filter((r): r is string => typeof r === "string") : [];
      let who: string;
      if (str(p.fromUser)) who = str(p.fromUser)!;
      else if (p.reply === true) who = `${handle(p.from)} replied`;
      else who = handle(p.from, "someone");
      const tags = p.reply === true || recipients.length === 0 ? [] : [`to ${recipients.map((r) => `@${r}`).join(", ")}`];
      return { headline: `${room} · ${who}`, quote: text, tags, tone: "room" };
    }
    case "run_started":
      return {
        headline: `${handle(p.agent)} · run started by ${triggerLabels[String(p.trigger)] ?? String(p.trigger ?? "something")}`,
        quote: null,
        tags: typeof p.hop === "number" && p.hop > 0 ? [`hop ${p.hop}`] : [],
        tone: "run",
      };
    case "run_finished": {
      const state = String(p.state ?? "finished");
      const tone: Tone = state === "succeeded" ? "ok" : state === "failed" ? "fail" : "muted";
      const quote = state === "failed" ? str(p.message) : null;
      const tags = state === "failed" && str(p.code) ? [String(p.code)] : [];
      // Its start folded in: one line for the whole run, what started it and how long it took.
      const started = names.started;
      if (started) {
        const s = started.payload;
        const took = Date.parse(item.at) - Date.parse(started.at);
        const trigger = triggerLabels[String(s.trigger)] ?? String(s.trigger ?? "something");
        return {
          headline: `${handle(p.agent)} · run started by ${trigger}, ${state}${Number.isFinite(took) && took >= 0 ? ` after ${formatDuration(took)}` : ""}`,
          quote,
          tags: [...(typeof s.hop === "number" && s.hop > 0 ? [`hop ${s.hop}`] : []), ...tags],
          tone,
        };
      }
      return { headline: `${handle(p.agent)} · run ${state}`, quote, tags, tone };
    }
    case "approval_requested": {
      const taint = Array.isArray(p.taint) ? p.taint.filter((t): t is string => typeof t === "string").map((t) => `⚠ ${taintLabel(t)}`) : [];
      const tags = [toolTag(p.tool), approvalCategoryLabels[String(p.category)] ?? str(p.category), ...taint].filter((t): t is string => !!t);
      return { headline: `${handle(p.agent)} · approval requested: ${str(p.title) ?? str(p.tool) ?? "an action"}`, quote: null, tags, tone: "approval" };
    }
    case "approval_decided": {
      const status = String(p.status ?? "decided");
      const tone: Tone = status === "approved" ? "ok" : status === "rejected" ? "fail" : "muted";
      const tags = [toolTag(p.tool), p.inputEdited === true ? "input edited" : null, p.decidedBy === "judge" ? "by the judge" : null].filter((t): t is string => !!t);
      const what = p.tool === CAP_TOOL ? (str(p.title) ?? "going past a spending cap") : str(p.tool);
      return { headline: `approval ${status}${what ? `: ${what}` : ""}`, quote: str(p.reason), tags, tone };
    }
    case "budget_alert":
      return { headline: `budget alert${str(p.message) ? `: ${str(p.message)}` : ""}`, quote: null, tags: [], tone: "warn" };
    case "thread_limit":
      return { headline: `conversation stopped: ${str(p.reason) ?? "the hop limit was reached"}`, quote: null, tags: typeof p.limit === "number" ? [`limit ${p.limit} hops`] : [], tone: "warn" };
    case "agent_paused":
      return { headline: str(p.reason) ?? `@${str(p.agent) ?? "an agent"} is paused`, quote: null, tags: [], tone: "warn" };
    case "mission_started":
      return { headline: `mission started · ${str(p.crew) ?? "a crew"}`, quote: str(p.goal), tags: [], tone: "run" };
    case "mission_handoff": {
      const from = p.from as { role?: unknown; agent?: unknown } | undefined;
      const to = p.to as { role?: unknown; agent?: unknown } | undefined;
      return { headline: `${str(from?.role) ?? "a node"} ${handle(from?.agent)} → ${str(to?.role) ?? "a node"} ${handle(to?.agent)}`, quote: str(p.preview), tags: ["mission handoff"], tone: "message" };
    }
    case "mission_node_waiting":
      return {
        headline: `mission node ${str(p.role) ?? ""} ${handle(p.agent)} awaits approval${p.tool === CAP_TOOL ? " to spend past its cap" : ""}`,
        quote: null,
        tags: [toolTag(p.tool)].filter((t): t is string => !!t),
        tone: "approval",
      };
    case "mission_finished": {
      const state = String(p.state ?? "finished");
      return { headline: `mission ${state} · ${str(p.crew) ?? "a crew"}`, quote: state === "succeeded" ? str(p.result) : str(p.error), tags: [], tone: state === "succeeded" ? "ok" : state === "failed" ? "fail" : "muted" };
    }
    default:
      return { headline: item.kind.replace(/_/g, " "), quote: text, tags: [], tone: "muted" };
  }
}

/** Where an item's run can be read: its run page, at the step when there is one. */
export function runHref(slug: string, item: Pick<FeedItem, "runId" | "stepId"> & { kind?: string; payload?: Record<string, unknown> }): string | null {
  // A mission's items open the mission page, where each node links to its run.
  if (item.kind?.startsWith("mission_") && typeof item.payload?.missionId === "string") return `/w/${slug}/missions/${item.payload.missionId}`;
  if (!item.runId) return null;
  return `/w/${slug}/runs/${item.runId}${item.stepId ? `#step-${item.stepId}` : ""}`;
}
