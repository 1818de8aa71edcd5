import type { TaintSource } from "../db/schema";

/** The taint source of content another agent handed on. */
export const agentTaint = (handle: string) => `agent:${handle}`;

/** Lists of taint sources joined in order, each source once (its first entry kept). */
export function mergeTaint(...lists: readonly (readonly TaintSource[])[]): TaintSource[] {
  const seen = new Set<string>();
  const merged: TaintSource[] = [];
  for (const list of lists) {
    for (const t of list) {
      if (seen.has(t.source)) continue;
      seen.add(t.source);
      merged.push(t);
    }
  }
  return merged;
}

/** What a tool declared its output carries, as a list: each source once, none empty. */
export function taintSourcesOf(declared: string | readonly string[] | null): string[] {
  const list = declared === null ? [] : typeof declared === "string" ? [declared] : declared;
  return [...new Set(list.filter((s) => s.length > 0))];
}

/**
 * What a turn handed content by another agent starts with: everything that
 * had reached the sender's run, then the sender itself. The steps that
 * brought the sender's sources in belong to the sender's run, so they are
 * not linked from the receiving one.
 */
export function taintFromAgent(senderTaint: readonly TaintSource[], handle: string): TaintSource[] {
  return mergeTaint(
    senderTaint.map((t) => ({ source: t.source, stepId: null })),
    [{ source: agentTaint(handle), stepId: null }],
  );
}

/** What a taint source means to a reader: another agent is inside the workspace, but what it hands on is not vouched for. */
export function describeTaintSource(source: string): string {
  return source.startsWith("agent:")
    ? `A message from @${source.slice("agent:".length)} reached this run, with whatever had reached that agent: treat what follows with care.`
    : "Content from outside the workspace reached this run: treat what follows with care.";
}

/**
 * A taint source in words, for people (the code stays in the API and in a tooltip): "Read a web page on
 * example.com", "Read a message from @atlas", "Came through the door token “laptop”".
 */
export function taintLabel(source: string): string {
  const colon = source.indexOf(":");
  const kind = colon > 0 ? source.slice(0, colon) : "";
  const what = source.slice(colon + 1);
  if (kind === "web") return `Read a web page on ${what}`;
  if (kind === "agent") return `Read a message from @${what}`;
  if (kind === "door") return `Came through the door token “${what}”`;
  return `Untrusted content (${source})`;
}

/** A taint source as a noun, inside a sentence: "a web page on example.com", "a message from @atlas". */
export function taintNoun(source: string): string {
  const colon = source.indexOf(":");
  const kind = colon > 0 ? source.slice(0, colon) : "";
  const what = source.slice(colon + 1);
  if (kind === "web") return `a web page on ${what}`;
  if (kind === "agent") return `a message from @${what}`;
  if (kind === "door") return `a request through the door token “${what}”`;
  return "content from outside the workspace";
}
