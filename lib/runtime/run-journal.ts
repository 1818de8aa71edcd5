import type { Db } from "../db/client";
import type { EventBus } from "./bus";
import type { RunEventInput } from "../journal/run-events";
import { withDbRetry } from "../db/retry";
import { appendRunEvents } from "../journal/run-journal-store";
import type { JournalWriter } from "./journal-writer";
import { endsInsidePair } from "../text";

type Delta = { type: "text" | "thinking"; payload: { delta: string } };

/**
 * The driver's writer to its run journal. Writes are chained so sequence
 * order is call order. With the process's `JournalWriter` (the default),
 * every delta goes to its next group commit at once; without it, each batch
 * is its own transaction. Text deltas are coalesced for `coalesceMs` (0: no
 * waiting window) and always flushed before any other event, so no
 * character is lost or reordered. A delta ending with the first half of a
 * surrogate pair (an emoji cut in two) waits for its second half, so a write
 * never holds half a character. A failed write poisons the writer: the
 * next `emit` or `flush` throws it.
 */
export class RunJournal {
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private buffer: Delta[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The batch queued behind a write in flight, not started yet: later events join it. */
  private waiting: RunEventInput[] | null = null;

  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
    private readonly runId: string,
    private readonly owner: string,
    private readonly coalesceMs: number,
    private readonly writer?: JournalWriter,
  ) {}

  delta(type: "text" | "thinking", delta: string) {
    if (!delta) return;
    const last = this.buffer[this.buffer.length - 1];
    if (last && last.type === type && (this.coalesceMs > 0 || endsInsidePair(last.payload.delta))) last.payload.delta += delta;
    else this.buffer.push({ type, payload: { delta } });
    if (this.coalesceMs === 0) this.flushBuffered(true);
    else this.timer ??= setTimeout(() => this.flushBuffered(true), this.coalesceMs);
  }

  async emit(event: RunEventInput): Promise<void> {
    this.flushBuffered();
    this.enqueue([event]);
    await this.settle();
  }

  async flush(): Promise<void> {
    this.flushBuffered();
    await this.settle();
  }

  private join(batch: RunEventInput[], event: RunEventInput) {
    const last = batch[batch.length - 1];
    if (this.coalesceMs > 0 && last && (last.type === "text" || last.type === "thinking") && last.type === event.type) {
      last.payload = { delta: last.payload.delta + (event.payload as { delta: string }).delta };
    } else {
      batch.push(event.type === "text" || event.type === "thinking" ? { ...event, payload: { ...event.payload } } : event);
    }
  }

  /** Drops buffered text without writing it (the run is no longer ours). */
  discard() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.buffer = [];
  }

  private async settle() {
    await this.tail;
    if (this.failure) throw this.failure;
  }

  /** `midStream`: more text may follow, so half a character at the end stays buffered for its other half. */
  private flushBuffered(midStream = false) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer.length === 0) return;
    const last = this.buffer[this.buffer.length - 1]!;
    if (midStream && endsInsidePair(last.payload.delta)) {
      const half = last.payload.delta.slice(-1);
      last.payload.delta = last.payload.delta.slice(0, -1);
      const ready = this.buffer.splice(0).filter((d) => d.payload.delta.length > 0);
      this.buffer.push({ type: last.type, payload: { delta: half } });
      if (ready.length > 0) this.enqueue(ready);
      return;
    }
    this.enqueue(this.buffer.splice(0));
  }

  private enqueue(events: RunEventInput[]) {
    if (this.writer) {
      if (this.failure) return;
      // The writer keeps call order and merges what waits for the same flush.
      const written = this.writer.append(this.runId, this.owner, events);
      this.tail = Promise.all([this.tail, written]).then(
        () => undefined,
        (error: unknown) => {
          this.failure ??= error;
        },
      );
      return;
    }
    // While a write is in flight, everything that arrives goes into one waiting batch (adjacent text merged),
    // so a slow database gets fewer, larger writes instead of a growing queue of small ones.
    if (this.waiting) {
      for (const event of events) this.join(this.waiting, event);
      return;
    }
    const batch: RunEventInput[] = [];
    for (const event of events) this.join(batch, event);
    this.waiting = batch;
    this.tail = this.tail
      .then(async () => {
        if (this.waiting === batch) this.waiting = null;
        if (this.failure) return;
        // One transaction per batch: after a transient database error it is tried again whole.
        await withDbRetry(() => appendRunEvents(this.db, this.bus, this.runId, this.owner, batch));
      })
      .catch((error: unknown) => {
        this.failure ??= error;
      });
  }
}
