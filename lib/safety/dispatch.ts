import type { ContentBlock } from "../models/types";

export interface ProposedCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** A batch runs only when every call has a non-empty id that no other call of the batch shares. */
export function validCallIds(calls: readonly ProposedCall[]): boolean {
  const seen = new Set<string>();
  return calls.every((c) => typeof c.id === "string" && c.id.trim() !== "" && !seen.has(c.id) && (seen.add(c.id), true));
}

/** An extra policy hook (a workspace rule engine, a test) that may allow, deny or rewrite a call. */
export type GateVerdict = { kind: "allow" } | { kind: "deny"; reason: string } | { kind: "modify"; call: ProposedCall; reason?: string };
export type PolicyGate = (call: ProposedCall) => Promise<GateVerdict> | GateVerdict;

export const MAX_MODIFY_ROUNDS = 4;

/**
 * Runs the gate until it allows or denies. A rewrite must keep the call id
 * and the tool (the kind of action): a policy may adjust what a call does,
 * never turn it into another call. Rounds are bounded.
 */
export async function authorizeCall(original: ProposedCall, gate: PolicyGate | undefined): Promise<{ ok: true; call: ProposedCall } | { ok: false; reason: string }> {
  if (!gate) return { ok: true, call: original };
  let call = original;
  for (let round = 0; round < MAX_MODIFY_ROUNDS; round++) {
    const verdict = await gate(call);
    if (verdict.kind === "allow") return { ok: true, call };
    if (verdict.kind === "deny") return { ok: false, reason: verdict.reason };
    if (verdict.call.id !== original.id || verdict.call.name !== original.name) {
      return { ok: false, reason: "The policy's modification changed the call's identity or kind of action." };
    }
    call = verdict.call;
  }
  return { ok: false, reason: "The policy's modifications did not settle on an authorisation." };
}

type ToolResult = Extract<ContentBlock, { type: "tool_result" }>;

/**
 * Matches results to calls by id. A call without a result gets an error
 * "no result"; a duplicate or unknown result id means the results cannot be
 * trusted, and every call of the batch gets an error.
 */
export function correlateResults(calls: readonly ProposedCall[], results: readonly ToolResult[]): ToolResult[] {
  const expected = new Set(calls.map((c) => c.id));
  const byId = new Map<string, ToolResult>();
  let invalid = false;
  for (const result of results) {
    if (!expected.has(result.toolUseId) || byId.has(result.toolUseId)) invalid = true;
    else byId.set(result.toolUseId, result);
  }
  return calls.map((call) => {
    if (invalid) return errorResult(call.id, "The tool results could not be matched to their calls, so none is trusted.");
    return byId.get(call.id) ?? errorResult(call.id, "no result: the tool returned nothing for this call");
  });
}

export function errorResult(callId: string, message: string): ToolResult {
  return { type: "tool_result", toolUseId: callId, content: JSON.stringify({ error: message }), isError: true };
}

/**
 * Stops calling a tool that keeps failing: after `threshold` failures in a
 * row it is refused for `coolDownMs`, then one trial call is let through.
 */
export class CircuitBreakers {
  private readonly state = new Map<string, { failures: number; openUntil: number }>();

  constructor(
    private readonly threshold = 5,
    private readonly coolDownMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Null when the tool may be called; otherwise why not. */
  check(tool: string): string | null {
    const s = this.state.get(tool);
    if (!s || s.openUntil <= this.now()) return null;
    return `\`${tool}\` failed ${s.failures} times in a row; it is paused for ${Math.ceil((s.openUntil - this.now()) / 1000)} s.`;
  }

  record(tool: string, ok: boolean) {
    if (ok) {
      this.state.delete(tool);
      return;
    }
    const s = this.state.get(tool) ?? { failures: 0, openUntil: 0 };
    s.failures += 1;
    if (s.failures >= this.threshold) s.openUntil = this.now() + this.coolDownMs;
    this.state.set(tool, s);
  }
}
