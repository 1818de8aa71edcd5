import type { ModelEvent, ModelProvider, ModelRequest } from "../../lib/models/types";
import type { RunEvent } from "../../lib/journal/run-events";
import { streamRunEvents } from "../../lib/runtime/stream";

/** What run `key` is told to say: numbered pieces, so a lost, repeated or reordered one shows. */
export const piecesOf = (key: string, count: number) => Array.from({ length: count }, (_, i) => `${key}:${i};`);

/** A model that says `piecesOf(user text, count)`, one piece per `paceMs`. */
export function countingModel(count: number, paceMs: number): ModelProvider {
  return {
    name: "counting",
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      const user = [...request.messages].reverse().find((m) => m.role === "user");
      const first = user?.content.find((b) => b.type === "text");
      const key = first?.type === "text" ? first.text : "";
      for (const delta of piecesOf(key, count)) {
        await new Promise((r) => setTimeout(r, paceMs));
        yield { type: "text", delta };
      }
      yield { type: "usage", usage: { inputTokens: 10, outputTokens: count } };
      yield { type: "stop", reason: "end_turn" };
    },
  };
}

export async function collect(options: Parameters<typeof streamRunEvents>[0]): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const item of streamRunEvents(options)) if (item.kind === "event") events.push(item.event);
  return events;
}

export const seqsAreDense = (events: RunEvent[], from = 1) => events.every((e, i) => e.seq === from + i);
