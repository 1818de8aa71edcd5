import { z } from "zod";

/** One entry of the world feed as the browser receives it. */
export interface FeedItem {
  seq: number;
  kind: string;
  agentId: string | null;
  targetAgentId: string | null;
  roomId: string | null;
  threadId: string | null;
  runId: string | null;
  stepId: string | null;
  approvalId: string | null;
  payload: Record<string, unknown>;
  at: string;
}

const nullableId = z.string().nullable().optional().transform((v) => v ?? null);

/** Checks an item from the stream; anything else is ignored. */
export const feedItemSchema = z.object({
  seq: z.number().int().min(1),
  kind: z.string(),
  agentId: nullableId,
  targetAgentId: nullableId,
  roomId: nullableId,
  threadId: nullableId,
  runId: nullableId,
  stepId: nullableId,
  approvalId: nullableId,
  payload: z.record(z.string(), z.unknown()).catch({}),
  at: z.string(),
});

export const feedKindLabels = {
  agent_message: "Messages",
  room_post: "Room posts",
  run_started: "Runs started",
  run_finished: "Runs finished",
  approval_requested: "Approvals asked",
  approval_decided: "Approvals decided",
  budget_alert: "Budget alerts",
  thread_limit: "Stopped conversations",
  agent_paused: "Paused agents",
  mission_started: "Missions started",
  mission_handoff: "Mission handoffs",
  mission_node_waiting: "Mission nodes awaiting approval",
  mission_finished: "Missions finished",
} as const;

export type FeedKind = keyof typeof feedKindLabels;
export const feedKinds = Object.keys(feedKindLabels) as FeedKind[];

export interface FeedFilter {
  /** The agent's handle in the address (`?agent=scout`); the API is sent its id. */
  agent?: string;
  room?: string;
  thread?: string;
  /** Empty or missing: every kind. */
  kinds?: FeedKind[];
}

const uuid = z.uuid();
const validId = (value: string | null | undefined) => (value && uuid.safeParse(value).success ? value : undefined);
/** A handle as written in an address, with or without its @ (an old link's id passes too, and is read as one). */
const validHandle = (value: string | null | undefined) => {
  const handle = value?.replace(/^@/, "").trim();
  return handle && /^[A-Za-z0-9_-]{1,64}$/.test(handle) ? handle.toLowerCase() : handle && uuid.safeParse(handle).success ? handle : undefined;
};

/** The filter a URL query names; unknown values are dropped rather than sent to the server. */
export function filterFromParams(params: URLSearchParams): FeedFilter {
  const kinds = (params.get("kind") ?? "")
    .split(",")
    .filter((k): k is FeedKind => (feedKinds as string[]).includes(k));
  return {
    agent: validHandle(params.get("agent")),
    room: validId(params.get("room")),
    thread: validId(params.get("thread")),
    kinds: kinds.length > 0 && kinds.length < feedKinds.length ? kinds : undefined,
  };
}

/**
 * The filter the API is sent: the agent's handle becomes its id (an old link's
 * id is kept). Null while the agents are not known yet; `unknownAgent` when no
 * agent has that handle.
 */
export function apiFilter(filter: FeedFilter, agents: { id: string; handle: string }[] | undefined): FeedFilter | "unknownAgent" | null {
  if (!filter.agent) return filter;
  if (!agents) return null;
  const agent = agents.find((a) => a.handle.toLowerCase() === filter.agent || a.id === filter.agent);
  return agent ? { ...filter, agent: agent.id } : "unknownAgent";
}

/** The API's query parameters for a filter (also a stable key for it). */
export function filterQuery(filter: FeedFilter): URLSearchParams {
  const params = new URLSearchParams();
  if (filter.agent) params.set("agent", filter.agent);
  if (filter.room) params.set("room", filter.room);
  if (filter.thread) params.set("thread", filter.thread);
  if (filter.kinds && filter.kinds.length > 0) params.set("kind", [...filter.kinds].sort().join(","));
  return params;
}

/** Adds items to a list ordered by seq, each seq once, keeping at most `max` (the newest). */
export function mergeFeedItems(current: FeedItem[], incoming: FeedItem[], max = 10_000): FeedItem[] {
  if (incoming.length === 0) return current;
  const last = current.length > 0 ? current[current.length - 1]!.seq : 0;
  const fresh = [...incoming].sort((a, b) => a.seq - b.seq).filter((item, i, all) => i === 0 || all[i - 1]!.seq !== item.seq);
  let merged: FeedItem[];
  if (fresh[0]!.seq > last) {
    merged = current.concat(fresh);
  } else {
    const bySeq = new Map(current.map((item) => [item.seq, item]));
    let added = false;
    for (const item of fresh) {
      if (!bySeq.has(item.seq)) {
        bySeq.set(item.seq, item);
        added = true;
      }
    }
    if (!added) return current;
    merged = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  }
  return merged.length > max ? merged.slice(merged.length - max) : merged;
}

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
};

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
export function describeFeedItem(item: FeedItem, names: { room?: string } = {}): ItemDescription {
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
      return { headline: `${handle(p.agent)} · run ${state}`, quote: state === "failed" ? str(p.message) : null, tags: state === "failed" && str(p.code) ? [String(p.code)] : [], tone };
    }
    case "approval_requested": {
      const taint = Array.isArray(p.taint) ? p.taint.filter((t): t is string => typeof t === "string").map((t) => `⚠ ${t}`) : [];
      const tags = [str(p.tool), approvalCategoryLabels[String(p.category)] ?? str(p.category), ...taint].filter((t): t is string => !!t);
      return { headline: `${handle(p.agent)} · approval requested: ${str(p.title) ?? str(p.tool) ?? "an action"}`, quote: null, tags, tone: "approval" };
    }
    case "approval_decided": {
      const status = String(p.status ?? "decided");
      const tone: Tone = status === "approved" ? "ok" : status === "rejected" ? "fail" : "muted";
      const tags = [str(p.tool), p.inputEdited === true ? "input edited" : null, p.decidedBy === "judge" ? "by the judge" : null].filter((t): t is string => !!t);
      return { headline: `approval ${status}${str(p.tool) ? `: ${str(p.tool)}` : ""}`, quote: str(p.reason), tags, tone };
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
      return { headline: `mission node ${str(p.role) ?? ""} ${handle(p.agent)} awaits approval`, quote: null, tags: [str(p.tool)].filter((t): t is string => !!t), tone: "approval" };
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
