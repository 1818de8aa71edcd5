/** How an approval is said on its card and in the inbox. */
import type { ApprovalItem } from "@/lib/safety/approval-schemas";
import { isCapRequest } from "@/lib/billing/cap-words";

export const categoryLabels: Record<string, string> = {
  external_send: "Sends outside",
  data_write: "Changes data",
  code_exec: "Runs code",
  spend: "Spends money",
  tainted_egress: "Passes on untrusted content",
  budget: "Spending cap",
};

/** What a request asks to run: the tool's name, or, for a run at its spending cap, that it asks to go on. */
export function toolLabel(item: Pick<ApprovalItem, "tool">): string {
  return isCapRequest(item) ? "going past its cap" : item.tool;
}

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
