export interface ApprovalItem {
  id: string;
  /** Run, step and chat are null for viewers who may not open the run behind the approval. */
  runId: string | null;
  stepId: string | null;
  category: string;
  tool: string;
  callId: string;
  input: Record<string, unknown>;
  editedInput: Record<string, unknown> | null;
  /** JSON Schema of the tool's input (null for a tool no longer known): the edit form is built from it. */
  inputSchema: Record<string, unknown> | null;
  preview: { title: string; fields: { label: string; value: string }[]; body?: string };
  taintSources: { source: string; stepId: string | null }[];
  status: "pending" | "approved" | "rejected" | "expired" | "withdrawn";
  reason: string | null;
  expiresAt: string;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  /** The governor's judge on this request, when one was asked (and whether that decided it). */
  judgeVerdict?: { verdict: "allow" | "deny" | "no_answer"; reason: string; model: string; decided: boolean } | null;
  requestedBy: string | null;
  requestedByUserId: string | null;
  sessionId: string | null;
  /** The person behind the chain that led to this request, and the agents it came through before the asking one. */
  onBehalfOf: string | null;
  onBehalfOfUserId: string | null;
  via: string[];
  /** The conversation that began the chain: a chat session or a room. */
  originSessionId: string | null;
  originRoomId: string | null;
  originRoom: string | null;
  /** Whether this workspace needs someone other than `onBehalfOf` to approve it. */
  fourEyes: boolean;
  /** Pending only: identical requests (same agent, tool and input) shown as this one. */
  identical?: { count: number; ids: string[] };
  canOpenRun: boolean;
  /** The mission this request's run is a node of. */
  missionId?: string | null;
  agent: { id: string; handle: string; name: string; color: string };
}

export const categoryLabels: Record<string, string> = {
  external_send: "Sends outside",
  data_write: "Changes data",
  code_exec: "Runs code",
  spend: "Spends money",
  tainted_egress: "Passes on untrusted content",
};

/** "in 23 h 12 min", "in 4 min", "expired". */
export function timeLeft(expiresAt: string, now: number): string {
  const ms = new Date(expiresAt).getTime() - now;
  if (ms <= 0) return "expired";
  const minutes = Math.ceil(ms / 60_000);
  if (minutes < 60) return `${minutes} min left`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min left`;
}

/** "asked by @herald for Rita, via @atlas"; a call from outside adds "through the door by “laptop”" (its token). */
export function requestLine(item: Pick<ApprovalItem, "agent" | "onBehalfOf" | "requestedBy" | "via">): string {
  const person = item.onBehalfOf ?? item.requestedBy;
  const door = item.via.find((h) => h.startsWith("door:"));
  const hops = item.via.filter((h) => !h.startsWith("door:"));
  const via = hops.length ? `, via ${hops.map((h) => `@${h}`).join(" → ")}` : "";
  return `asked by @${item.agent.handle}${person ? ` for ${person}` : ""}${door ? ` through the door by “${door.slice(5)}”` : ""}${via}`;
}

/** Where the chain began: the chat session or the room. */
export function originHref(slug: string, item: Pick<ApprovalItem, "originSessionId" | "originRoomId" | "sessionId">): string | null {
  if (item.originSessionId) return `/w/${slug}/chat/${item.originSessionId}`;
  if (item.originRoomId) return `/w/${slug}/rooms/${item.originRoomId}`;
  return item.sessionId ? `/w/${slug}/chat/${item.sessionId}` : null;
}

/** "The judge (offline) allowed it: …", for a request the governor looked at. */
export function judgeLine(verdict: NonNullable<ApprovalItem["judgeVerdict"]>): string {
  const said = verdict.verdict === "allow" ? "allowed it" : verdict.verdict === "deny" ? "refused it" : "gave no verdict";
  return `The judge (${verdict.model}) ${said}${verdict.decided ? "" : "; a person decides"}: ${verdict.reason}`;
}
