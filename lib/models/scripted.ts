import { ModelError, type ModelEvent, type ModelProvider, type ModelRequest } from "./types";

/** One model call's worth of script: events to stream (with an optional pause between them), or a failure. */
export type ScriptedTurn =
  | { events: ModelEvent[]; delayMs?: number; failAfter?: ModelError }
  | { error: ModelError };

/**
 * A model that plays a list of turns, one per call, and records what it was
 * asked. For tests: the runtime cannot tell it from a real provider.
 */
export function createScriptedModel(turns: ScriptedTurn[]): ModelProvider & { requests: ModelRequest[]; remaining(): number } {
  const queue = [...turns];
  const requests: ModelRequest[] = [];
  return {
    name: "scripted",
    requests,
    remaining: () => queue.length,
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const turn = queue.shift();
      if (!turn) throw new ModelError("The scripted model has no turn left.", "script_exhausted");
      if ("error" in turn) throw turn.error;
      for (const event of turn.events) {
        if (turn.delayMs) {
          await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
        }
        if (request.signal?.aborted) {
          const error = new Error("aborted");
          error.name = "AbortError";
          throw error;
        }
        yield event;
      }
      if (turn.failAfter) throw turn.failAfter;
    },
  };
}

/** Shorthand for a turn that streams text in the given pieces and ends the turn. */
export function textTurn(pieces: string[], usage = { inputTokens: 100, outputTokens: 20 }, delayMs?: number): ScriptedTurn {
  return {
    delayMs,
    events: [
      ...pieces.map((delta) => ({ type: "text" as const, delta })),
      { type: "usage", usage },
      { type: "stop", reason: "end_turn" },
    ],
  };
}

/** Shorthand for a turn that (optionally says something and) calls tools. */
export function toolTurn(
  calls: { id: string; name: string; input: Record<string, unknown> }[],
  text = "",
  usage = { inputTokens: 100, outputTokens: 20 },
): ScriptedTurn {
  return {
    events: [
      ...(text ? [{ type: "text" as const, delta: text }] : []),
      ...calls.map((c) => ({ type: "tool_call" as const, ...c })),
      { type: "usage", usage },
      { type: "stop", reason: "tool_use" },
    ],
  };
}
