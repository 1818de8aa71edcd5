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

/**
 * Followers of a group-commit writer in this process, by key (a run, a
 * workspace): each is handed what was committed under its key.
 */
export class KeyedListeners<L> {
  private readonly byKey = new Map<string, Set<L>>();

  /** Adds a follower of `key`; returns the function that removes it. */
  add(key: string, listener: L): () => void {
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
    };
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** The followers of `key` (none when nobody follows it). */
  of(key: string): Iterable<L> {
    return this.byKey.get(key) ?? [];
  }
}

/** Rows another writer announced and a reader here has not handed over yet: handed over up to `after`, announced up to `upTo`. */
export interface AnnouncedRange {
  after: number;
  upTo: number;
}

/**
 * Reads a range other writers announced once for every follower here and
 * hands the rows over in order; notices that arrive meanwhile raise
 * `range.upTo` and the same loop reads on. Stops when nobody follows any
 * more; a failed read wakes the followers instead, and each reads for itself.
 */
export async function readAnnounced<T extends { seq: number }>(
  range: AnnouncedRange,
  input: { read: (after: number) => Promise<T[]>; followed: () => boolean; deliver: (rows: T[]) => void; wake: () => void },
): Promise<void> {
  try {
    while (range.after < range.upTo && input.followed()) {
      const rows = await input.read(range.after);
      if (rows.length === 0) break;
      range.after = rows[rows.length - 1]!.seq;
      input.deliver(rows);
    }
  } catch {
    input.wake();
  }
}
