import crypto from "node:crypto";

/**
 * Trace and span ids derived from what the journal records, never random: a run suspended for an approval may end
 * hours later in another process, and whichever process exports a span of it must give it the same ids, and the same
 * parent, as every other process would.
 */
export type SpanOf = "mission" | "run" | "model_call" | "tool_call";

/** A trace is a mission's, or the run that began a chain of agents' (a person's chat, a room post, a door call). */
export function traceIdOf(root: { missionRunId: string } | { runId: string }): string {
  return hexId("missionRunId" in root ? `trace:mission:${root.missionRunId}` : `trace:run:${root.runId}`, 16);
}

/** `key`: the mission run's, the run's or the step's id; a model call's is `<runId>:<call number>`. */
export function spanIdOf(kind: SpanOf, key: string): string {
  return hexId(`span:${kind}:${key}`, 8);
}

/** The first `bytes` of a SHA-256, as lower-case hex; never all zeros, which OpenTelemetry reads as "no id". */
function hexId(input: string, bytes: number): string {
  const hex = crypto.createHash("sha256").update(input).digest("hex").slice(0, bytes * 2);
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}
