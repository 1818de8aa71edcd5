import type { ContentBlock } from "../models/types";
import type { ToolDefinition } from "../tools/types";

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

/** What a finished call says about its destination's health. */
export type BreakerOutcome = "success" | "failure" | "neutral";

/**
 * Who a breaker protects: one workspace's calls of one tool to one
 * destination (a host, a connection); null when the tool has none, so the
 * breaker is the workspace's whole tool. One workspace's failures never
 * pause another's calls, nor the same workspace's calls elsewhere.
 */
export interface BreakerKey {
  workspaceId: string;
  tool: string;
  destination: string | null;
}

export type BreakerState = "closed" | "open" | "half_open";

interface Breaker {
  state: BreakerState;
  failures: number;
  /** open: refused until then. half_open: the trial call's lease ends then (0: no trial under way). */
  until: number;
}

/** Most breakers kept: failing destinations are forgotten oldest first past this (a healthy one holds no entry). */
const MAX_BREAKERS = 10_000;

/**
 * Stops calling a destination that keeps failing. Closed: calls run, and
 * `threshold` failures in a row open it. Open: calls are refused for
 * `coolDownMs`. Half-open (after the cool-down): one trial call runs while
 * others are refused; its success closes the breaker, its failure opens it
 * again for another cool-down. A trial that never reports (its run was
 * stopped) lapses after a cool-down and the next call becomes the trial.
 * Only real failures count: a call refused by a rule (a blocked address,
 * a policy) says nothing about the destination and is `neutral`.
 */
export class CircuitBreakers {
  private readonly breakers = new Map<string, Breaker>();

  constructor(
    private readonly threshold = 5,
    private readonly coolDownMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Null when the call may run (it may be the half-open trial); otherwise why not, for the model to read. */
  check(key: BreakerKey): string | null {
    const b = this.breakers.get(mapKey(key));
    if (!b || b.state === "closed") return null;
    const now = this.now();
    if (b.state === "open" && now < b.until) {
      return `${describe(key)} failed ${b.failures} times in a row; it is paused for ${Math.ceil((b.until - now) / 1000)} s.`;
    }
    if (b.state === "half_open" && now < b.until) {
      return `${describe(key)} failed ${b.failures} times in a row; a trial call is under way, try again shortly.`;
    }
    b.state = "half_open";
    b.until = now + this.coolDownMs;
    return null;
  }

  record(key: BreakerKey, outcome: BreakerOutcome) {
    const id = mapKey(key);
    const b = this.breakers.get(id);
    if (outcome === "success") {
      this.breakers.delete(id);
      return;
    }
    if (outcome === "neutral") {
      // A refused trial tested nothing: the next call is the trial.
      if (b?.state === "half_open") b.until = 0;
      return;
    }
    const next = b ?? { state: "closed" as BreakerState, failures: 0, until: 0 };
    next.failures += 1;
    if (next.state === "half_open" || (next.state === "closed" && next.failures >= this.threshold)) {
      next.state = "open";
      next.until = this.now() + this.coolDownMs;
    }
    if (!b) {
      this.breakers.set(id, next);
      if (this.breakers.size > MAX_BREAKERS) this.breakers.delete(this.breakers.keys().next().value!);
    }
  }

  /** The state a call would meet now (without starting a trial). */
  stateOf(key: BreakerKey): BreakerState {
    const b = this.breakers.get(mapKey(key));
    if (!b) return "closed";
    if (b.state === "open" && this.now() >= b.until) return "half_open";
    return b.state;
  }
}

/** The breaker a call meets: its workspace, its tool, and where the tool says the call goes. */
export function breakerKeyFor(workspaceId: string, tool: Pick<ToolDefinition, "name" | "destination">, input: Record<string, unknown>): BreakerKey {
  let destination: string | null = null;
  try {
    destination = tool.destination?.(input) ?? null;
  } catch {
    // An input the tool cannot place (it will fail validation or the call): the tool's own breaker.
  }
  return { workspaceId, tool: tool.name, destination };
}

function mapKey(key: BreakerKey): string {
  return JSON.stringify([key.workspaceId, key.tool, key.destination]);
}

function describe(key: BreakerKey): string {
  return key.destination ? `\`${key.tool}\` to ${key.destination}` : `\`${key.tool}\``;
}
