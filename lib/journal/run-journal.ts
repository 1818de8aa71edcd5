import type { RunEventInput } from "./run-events";
import type { JournalWriter } from "./run-journal-writer";
import { endsInsidePair } from "../text";

type Delta = { type: "text" | "thinking"; payload: { delta: string } };

/**
 * The driver's writer to its run journal. Writes are chained so sequence
 * order is call order, and go through the process's `JournalWriter`: every
 * delta goes to its next group commit at once. Text deltas are coalesced for `coalesceMs` (0: no
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

  constructor(
    private readonly writer: JournalWriter,
    private readonly runId: string,
    private readonly owner: string,
    private readonly coalesceMs: number,
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
    if (this.failure) return;
    // The writer keeps call order and merges what waits for the same flush.
    const written = this.writer.append(this.runId, this.owner, events);
    this.tail = Promise.all([this.tail, written]).then(
      () => undefined,
      (error: unknown) => {
        this.failure ??= error;
      },
    );
  }
}
