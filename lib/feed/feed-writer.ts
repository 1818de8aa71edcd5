import { randomUUID } from "node:crypto";
import type { Database } from "../db/client";
import type { EventBus } from "../runtime/bus";
import { withDbRetry } from "../runtime/db-retry";
import { FlushLoop, KeyedListeners } from "../runtime/group-commit";
import { logError } from "../log";
import { insertFeedItems, notifyFeed, type FeedItemInput, type FeedItemView, type WrittenFeed } from "./feed";

type Written = WrittenFeed[];
type FeedListener = (items: FeedItemView[]) => void;

interface Waiting {
  items: FeedItemInput[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The process's feed writer: feed items appended outside a transaction are
 * written together (group commit), like the run journal. A flush starts as
 * soon as the previous one returns, with everything that arrived meanwhile:
 * one transaction, one sequence allocation per workspace (the workspace row
 * is locked once per flush, not once per item), one INSERT. Persist before
 * emit: after the commit, one notification per workspace names the newest
 * sequence number written, and only then do the appenders' promises resolve.
 * Items keep their arrival order within a workspace. Followers in this
 * process (`listen`) are handed the committed items from memory before the
 * notification goes out; the notification names this writer (`origin`) so
 * they do not read them again.
 */
export class FeedWriter {
  readonly origin = randomUUID();
  private pending: Waiting[] = [];
  private readonly listeners = new KeyedListeners<FeedListener>();
  private readonly loop = new FlushLoop(
    () => this.pending.length > 0,
    () => this.flush(),
  );
  /** Flushes (transactions) and items written so far, for the benchmark. */
  readonly stats = { flushes: 0, items: 0 };

  constructor(
    private readonly db: Database,
    private readonly bus: EventBus,
  ) {}

  /** Queues items for the next flush; resolves once they are committed and announced. */
  append(items: FeedItemInput[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    const promise = new Promise<void>((resolve, reject) => this.pending.push({ items, resolve, reject }));
    this.loop.schedule();
    return promise;
  }

  /** Follows one workspace's committed items in this process. Returns the unsubscribe function. */
  listen(workspaceId: string, listener: FeedListener): () => void {
    return this.listeners.add(workspaceId, listener);
  }

  /** Takes everything waiting and writes it as one flush. */
  private async flush() {
    const batch = this.pending;
    this.pending = [];
    await this.write(batch);
  }

  private async write(batch: Waiting[]) {
    let written: Written;
    try {
      written = await this.commit(batch.flatMap((w) => w.items));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One appender's items (say, of a workspace deleted meanwhile) must not sink the others': each is tried alone.
      for (const w of batch) {
        try {
          await this.announce(await this.commit(w.items));
          w.resolve();
        } catch (own) {
          w.reject(own);
        }
      }
      return;
    }
    await this.announce(written);
    for (const w of batch) w.resolve();
  }

  private async commit(items: FeedItemInput[]): Promise<Written> {
    const written = await withDbRetry(() => this.db.transaction((tx) => insertFeedItems(tx, items)));
    this.stats.flushes += 1;
    this.stats.items += items.length;
    return written;
  }

  /** The items are committed whatever happens here: a lost notification is caught up by the readers' heartbeat. */
  private async announce(written: Written) {
    for (const w of written) for (const listener of this.listeners.of(w.workspaceId)) listener(w.items);
    await notifyFeed(this.bus, written, this.origin).catch((error: unknown) => logError("Could not announce feed items", error));
  }
}

/** See journal-writer.ts: the registry lives on `globalThis`, shared by every server chunk that loads this module. */
const registry = globalThis as typeof globalThis & { [key: symbol]: WeakMap<object, FeedWriter> | undefined };
const REGISTRY_KEY = Symbol.for("clawdeck.feedWriters");

/** The one feed writer of a database handle in this process (created on first use, with the bus it is given then). */
export function feedWriterFor(db: Database, bus: EventBus): FeedWriter {
  const writers = (registry[REGISTRY_KEY] ??= new WeakMap());
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new FeedWriter(db, bus)));
  return writer;
}
