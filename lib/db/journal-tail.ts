export type TailItem<T> = { kind: "item"; item: T } | { kind: "heartbeat" };

/**
 * Reads a sequenced journal after `afterSeq`, then follows it: each
 * notification only says "there is more", and the rows are read from the
 * journal, so a late reader gets exactly what a live one got. Subscribes
 * before the first read so nothing published in between is missed; on a
 * quiet stretch it yields a heartbeat and reads again anyway (a lost
 * notification cannot stall it). Ends after an item for which `isLast` is true.
 *
 * `push` hands over committed items themselves (for a journal whose
 * sequence numbers have no gaps): those that continue the cursor are
 * yielded from memory without a read; anything else (a gap, a backlog over
 * `memoryLimit`) falls back to reading the journal. Items pushed while a read
 * is under way are kept, as the read may end before them (what it returned is
 * skipped). `fresh` says that nothing
 * after `afterSeq` was committed before this subscription (a run followed
 * before it is driven): the first read is skipped, and should that be wrong,
 * the first item pushed shows the gap and the journal is read.
 */
export async function* tailJournal<T extends { seq: number }>(options: {
  subscribe: (wake: () => void) => () => void;
  push?: (deliver: (items: T[]) => void) => () => void;
  read: (afterSeq: number) => Promise<T[]>;
  batchSize: number;
  memoryLimit?: number;
  afterSeq: number;
  isLast?: (item: T) => boolean;
  signal?: AbortSignal;
  heartbeatMs?: number;
  fresh?: boolean;
}): AsyncGenerator<TailItem<T>> {
  const { signal } = options;
  let cursor = options.afterSeq;
  let dirty = !(options.fresh && options.push);
  let wake: (() => void) | null = null;
  let queued: T[] = [];
  const memoryLimit = options.memoryLimit ?? 2_000;
  const unsubscribe = options.subscribe(() => {
    dirty = true;
    queued = [];
    wake?.();
  });
  const unpush = options.push?.((items) => {
    if (dirty) return; // the coming read gets them
    if (queued.length + items.length > memoryLimit) {
      dirty = true;
      queued = [];
    } else queued.push(...items);
    wake?.();
  });
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  try {
    while (!signal?.aborted) {
      if (dirty) {
        dirty = false;
        for (;;) {
          const batch = await options.read(cursor);
          for (const item of batch) {
            cursor = item.seq;
            yield { kind: "item", item };
            if (options.isLast?.(item)) return;
          }
          if (batch.length < options.batchSize) break;
        }
        continue;
      }
      if (queued.length > 0) {
        const items = queued;
        queued = [];
        for (const item of items) {
          if (item.seq <= cursor) continue;
          if (item.seq !== cursor + 1) {
            // Something was written that this process did not carry (another writer): read it.
            dirty = true;
            queued = [];
            break;
          }
          cursor = item.seq;
          yield { kind: "item", item };
          if (options.isLast?.(item)) return;
          if (dirty) break;
        }
        continue;
      }
      const timedOut = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), options.heartbeatMs ?? 15_000);
        wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
      });
      wake = null;
      if (timedOut) {
        dirty = true;
        yield { kind: "heartbeat" };
      }
    }
  } finally {
    unsubscribe();
    unpush?.();
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * The current value of something that changes (a count, a summary): read at
 * once, then again after every notification, with a heartbeat on a quiet
 * stretch. Built on `tailJournal`, each read being the next "row".
 */
export async function* followChanges<T>(options: {
  subscribe: (wake: () => void) => () => void;
  read: () => Promise<T>;
  signal?: AbortSignal;
  heartbeatMs?: number;
}): AsyncGenerator<TailItem<T>> {
  let reads = 0;
  for await (const next of tailJournal({
    subscribe: options.subscribe,
    read: async () => [{ seq: ++reads, value: await options.read() }],
    batchSize: 2,
    afterSeq: 0,
    signal: options.signal,
    heartbeatMs: options.heartbeatMs,
  })) {
    yield next.kind === "heartbeat" ? next : { kind: "item", item: next.item.value };
  }
}
