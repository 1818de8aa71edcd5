import type { Viewer } from "../access/access";
import { runEventForViewer } from "../access/redact";
import type { Database, Db } from "../db/client";
import type { EventBus } from "../db/bus";
import { isTerminal, type RunEvent } from "../journal/run-events";
import { readRunEvents, runTopic } from "../journal/run-journal-store";
import { journalWriterFor } from "../journal/run-journal-writer";
import { tailJournal } from "../db/journal-tail";

export type StreamItem = { kind: "event"; event: RunEvent } | { kind: "heartbeat" };

/**
 * Every event of a run after `afterSeq`, in order, then the live tail until
 * the terminal event. Live and replayed events come from the same journal
 * reads, so a subscriber that reconnects sees exactly what it missed.
 * With a `viewer`, each event is shaped for them (no credits for members).
 * Events committed by this process's journal writer, and the terminal event
 * of a run this process ends, arrive from memory; so do another process's,
 * through this process's writer (carried in their notification, or read once
 * for all of the run's followers here). A system write (a cancel, a decision)
 * is read.
 * `fresh`: the run has journaled nothing yet (it is followed before it is
 * driven), so the stream starts without a read.
 */
export async function* streamRunEvents(options: {
  db: Db;
  bus: EventBus;
  runId: string;
  afterSeq: number;
  signal?: AbortSignal;
  heartbeatMs?: number;
  viewer?: Viewer;
  fresh?: boolean;
}): AsyncGenerator<StreamItem> {
  const { db, bus, runId } = options;
  const writer = journalWriterFor(db as Database, bus);
  for await (const next of tailJournal<RunEvent>({
    subscribe: (wake) => {
      const offBus = bus.subscribe(runTopic(runId), (message) => {
        if (message.o === writer.origin) return; // handed over from memory already
        wake();
      });
      const offWriter = writer.listen(runId, { events: () => undefined, wake });
      return () => {
        offBus();
        offWriter();
      };
    },
    push: (deliver) => writer.listen(runId, { events: deliver, wake: () => undefined }),
    read: (after) => readRunEvents(db, runId, after, 500),
    batchSize: 500,
    afterSeq: options.afterSeq,
    isLast: (event) => isTerminal(event.type),
    signal: options.signal,
    heartbeatMs: options.heartbeatMs,
    fresh: options.fresh,
  })) {
    if (next.kind === "heartbeat") yield next;
    else yield { kind: "event", event: options.viewer ? runEventForViewer(options.viewer, next.item) : next.item };
  }
}
