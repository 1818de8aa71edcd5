/**
 * The flush loop of a group-commit writer: a flush starts as soon as work is
 * waiting and no flush is in progress (no fixed window when idle), and the
 * next one starts right after the previous returns, with everything that
 * arrived meanwhile (bigger batches under load). Work queued in the same turn
 * of the event loop shares one flush.
 */
export class FlushLoop {
  private flushing = false;
  private scheduled = false;

  constructor(
    private readonly hasWork: () => boolean,
    private readonly flushOnce: () => Promise<void>,
  ) {}

  /** Called after queueing work. */
  schedule() {
    if (this.flushing || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.run();
    });
  }

  private async run() {
    if (this.flushing || !this.hasWork()) return;
    this.flushing = true;
    try {
      await this.flushOnce();
    } finally {
      this.flushing = false;
      if (this.hasWork()) void this.run();
    }
  }
}
