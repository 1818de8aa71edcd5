/** Which feed items a page shows: the filter its address names and the query the API is sent. */
import { z } from "zod/mini";

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
  /** With `agent`, a pair from who talks to whom: only what `agent` sent to this handle (`?agent=scout&to=atlas`). */
  to?: string;
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
    to: validHandle(params.get("to")),
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
  if (!filter.agent && !filter.to) return filter;
  if (!agents) return null;
  const find = (value: string) => agents.find((a) => a.handle.toLowerCase() === value || a.id === value)?.id;
  const agent = filter.agent ? find(filter.agent) : undefined;
  const to = filter.to ? find(filter.to) : undefined;
  if ((filter.agent && !agent) || (filter.to && !to)) return "unknownAgent";
  return { ...filter, agent, to };
}

/** The API's query parameters for a filter (also a stable key for it). */
export function filterQuery(filter: FeedFilter): URLSearchParams {
  const params = new URLSearchParams();
  if (filter.agent) params.set("agent", filter.agent);
  if (filter.to) params.set("to", filter.to);
  if (filter.room) params.set("room", filter.room);
  if (filter.thread) params.set("thread", filter.thread);
  if (filter.kinds && filter.kinds.length > 0) params.set("kind", [...filter.kinds].sort().join(","));
  return params;
}
