import { cleanDeep, cleanText, endsInsidePair } from "../text";
import type { ResolvedModel } from "./registry";
import type { ModelEvent } from "./types";

/**
 * A provider's stream as the runtime may store it: NUL characters removed
 * from text and tool inputs, and a character split across two deltas (an
 * emoji whose surrogate pair was cut by the provider's chunking) rejoined,
 * so no delta ever holds half a character.
 */
export async function* cleanModelStream(events: AsyncIterable<ModelEvent>): AsyncIterable<ModelEvent> {
  const held: Record<"text" | "thinking", string> = { text: "", thinking: "" };
  function* release(): Generator<ModelEvent> {
    for (const type of ["text", "thinking"] as const) {
      if (!held[type]) continue;
      yield { type, delta: cleanText(held[type]) };
      held[type] = "";
    }
  }
  for await (const event of events) {
    if (event.type === "text" || event.type === "thinking") {
      let delta = held[event.type] + event.delta.replaceAll("\u0000", "");
      held[event.type] = "";
      if (endsInsidePair(delta)) {
        held[event.type] = delta.slice(-1);
        delta = delta.slice(0, -1);
      }
      if (delta) yield { type: event.type, delta: cleanText(delta) };
      continue;
    }
    yield* release();
    yield event.type === "tool_call" ? { ...event, input: cleanDeep(event.input) } : event;
  }
  yield* release();
}

/** The same model, streaming through `cleanModelStream`. */
export function withCleanOutput(model: ResolvedModel): ResolvedModel {
  const { provider } = model;
  return { ...model, provider: { name: provider.name, stream: (request) => cleanModelStream(provider.stream(request)) } };
}
