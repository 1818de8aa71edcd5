import type { Viewer } from "../access/access";
import { runEventForViewer } from "../access/redact";
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
 * With a `viewer`, each event is shaped for them (no credits for members).
 */
export async function* streamRunEvents(options: {
  db: Db;
  bus: EventBus;
  runId: string;
  afterSeq: number;
  signal?: AbortSignal;
  heartbeatMs?: number;
  viewer?: Viewer;
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
    if (next.kind === "heartbeat") yield next;
    else yield { kind: "event", event: options.viewer ? runEventForViewer(options.viewer, next.item) : next.item };
  }
}
