import type { Db } from "../db/client";
import type { EventBus } from "./bus";
import { isTerminal, type RunEvent } from "./events";
import { readRunEvents, runTopic } from "./journal";
import { tailJournal } from "./tail";

export type StreamItem = { kind: "event"; event: RunEvent } | { kind: "heartbeat" };

/**
 * Every event of a run after `afterSeq`, in order, then the live tail until
 * the terminal event. Live and replayed events come from the same journal
 * reads, so a subscriber that reconnects sees exactly what it missed.
 */
export async function* streamRunEvents(options: {
  db: Db;
  bus: EventBus;
  runId: string;
  afterSeq: number;
  signal?: AbortSignal;
  heartbeatMs?: number;
}): AsyncGenerator<StreamItem> {
  const { db, bus, runId } = options;
  for await (const next of tailJournal<RunEvent>({
    subscribe: (wake) => bus.subscribe(runTopic(runId), wake),
    read: (after) => readRunEvents(db, runId, after, 500),
    batchSize: 500,
    afterSeq: options.afterSeq,
    isLast: (event) => isTerminal(event.type),
    signal: options.signal,
    heartbeatMs: options.heartbeatMs,
  })) {
    yield next.kind === "item" ? { kind: "event", event: next.item } : next;
  }
}
