import type { Db } from "../db/client";
import type { EventBus } from "./bus";
import { isTerminal, type RunEvent } from "./events";
import { readRunEvents, runTopic } from "./journal";

export type StreamItem = { kind: "event"; event: RunEvent } | { kind: "heartbeat" };

/**
 * Every event of a run after `afterSeq`, in order, then the live tail until
 * the terminal event. Live and replayed events come from the same journal
 * reads, so a subscriber that reconnects sees exactly what it missed.
 * Yields a heartbeat when nothing happened for `heartbeatMs`.
 */
export async function* streamRunEvents(options: {
  db: Db;
  bus: EventBus;
  runId: string;
  afterSeq: number;
  signal?: AbortSignal;
  heartbeatMs?: number;
}): AsyncGenerator<StreamItem> {
  const { db, bus, runId, signal } = options;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let cursor = options.afterSeq;
  let wake: (() => void) | null = null;
  let dirty = true;
  // Subscribe before the first read so that nothing published in between is missed.
  const unsubscribe = bus.subscribe(runTopic(runId), () => {
    dirty = true;
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  try {
    while (!signal?.aborted) {
      if (dirty) {
        dirty = false;
        for (;;) {
          const batch = await readRunEvents(db, runId, cursor);
          for (const event of batch) {
            cursor = event.seq;
            yield { kind: "event", event };
            if (isTerminal(event.type)) return;
          }
          if (batch.length < 500) break;
        }
        continue;
      }
      const timedOut = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), heartbeatMs);
        wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      wake = null;
      if (timedOut) {
        // Also re-read: a notification lost between processes must not stall the stream.
        dirty = true;
        yield { kind: "heartbeat" };
      }
    }
  } finally {
    unsubscribe();
    signal?.removeEventListener("abort", onAbort);
  }
}
