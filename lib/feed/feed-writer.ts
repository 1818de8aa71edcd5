import { randomUUID } from "node:crypto";
import type { Database } from "../db/client";
import { AppError } from "../errors";
import type { EventBus } from "../db/bus";
import { withDbRetry } from "../db/retry";
import { FlushLoop, KeyedListeners, readAnnounced, type AnnouncedRange } from "../db/group-commit";
import { logError } from "../log";
import { feedTopic, notifyFeed, readFeed, writeFeedItems, type FeedItemInput, type FeedItemView, type WrittenFeed } from "./feed-store";

export interface FeedListener {
  /** Committed items of the workspace, in sequence order, from memory. */
  items(items: FeedItemView[]): void;
  /** The feed grew in a way this process cannot hand over (an old-style notice, a failed read): read it. */
  wake(): void;
}

interface Waiting {
  items: FeedItemInput[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A workspace followed in this process: its notifications, and the range other writers announced while one read runs. */
interface Followed {
  off: () => void;
  remote?: AnnouncedRange;
}

/**
 * The process's feed writer: feed items appended outside a transaction are
 * written together (group commit), like the run journal. A flush starts as
 * soon as the previous one returns, with everything that arrived meanwhile,
 * and is one statement (`writeFeedItems`): each workspace's sequence bumped
 * once, the rows inserted, and on PostgreSQL the notifications sent from
 * the same statement, delivered at its commit. Persist before emit: only
 * after the commit are followers handed the items and the appenders'
 * promises resolved. Items keep their arrival order within a workspace.
 *
 * Followers in this process (`listen`) get every committed item from memory:
 * this writer's own right after its commit; those written elsewhere (another
 * process, a caller's transaction) by one read per announced range for all
 * followers of the workspace, where each follower used to read them itself.
 * A notification names its writer (`o`) and range (`f` to `seq`).
 */
export class FeedWriter {
  readonly origin = randomUUID();
  private pending: Waiting[] = [];
  private readonly listeners = new KeyedListeners<FeedListener>();
  private readonly followed = new Map<string, Followed>();
  private readonly loop = new FlushLoop(
    () => this.pending.length > 0,
    () => this.flush(),
  );
  /** Flushes (statements) and items written so far, and reads of ranges other writers announced, for the benchmark. */
  readonly stats = { flushes: 0, items: 0, reads: 0 };

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
    const remove = this.listeners.add(workspaceId, listener);
    if (!this.followed.has(workspaceId)) {
      this.followed.set(workspaceId, { off: this.bus.subscribe(feedTopic(workspaceId), (message) => this.onNotice(workspaceId, message)) });
    }
    return () => {
      remove();
      const followed = this.followed.get(workspaceId);
      if (followed && !this.listeners.has(workspaceId)) {
        followed.off();
        this.followed.delete(workspaceId);
      }
    };
  }

  /** Takes everything waiting and writes it as one flush. */
  private async flush() {
    const batch = this.pending;
    this.pending = [];
    await this.write(batch);
  }

  private async write(batch: Waiting[]) {
    let written: WrittenFeed[];
    try {
      written = await this.commit(batch.flatMap((w) => w.items));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One appender's items (say, naming an agent deleted meanwhile) must not sink the others': each is tried alone.
      for (const w of batch) {
        let own: WrittenFeed[];
        try {
          own = await this.commit(w.items);
        } catch (failure) {
          w.reject(failure);
          continue;
        }
        this.settle([w], own);
      }
      return;
    }
    this.settle(batch, written);
  }

  /** Writes items as one statement. Only that statement's failure lands here: what follows a commit is in `settle`. */
  private async commit(items: FeedItemInput[]): Promise<WrittenFeed[]> {
    const notice = this.bus.channel ? { channel: this.bus.channel, origin: this.origin } : undefined;
    return withDbRetry(() => writeFeedItems(this.db, items, new Date(), notice));
  }

  /**
   * The items are committed: followers here get them, other processes are told (on PostgreSQL the statement did it),
   * and each appender learns whether its workspaces were there to number them. An appender's items of one workspace
   * are written even when another workspace it named is gone (every appender names one today).
   */
  private settle(batch: Waiting[], written: WrittenFeed[]) {
    this.stats.flushes += 1;
    this.stats.items += written.reduce((n, w) => n + w.items.length, 0);
    for (const w of written) {
      for (const listener of this.listeners.of(w.workspaceId)) {
        try {
          listener.items(w.items);
        } catch (error) {
          logError("A feed follower failed", error);
        }
      }
    }
    // Not awaited: the next flush need not wait for the notifications, and a lost one is caught up by the heartbeat.
    if (!this.bus.channel) void notifyFeed(this.bus, written, this.origin).catch((error: unknown) => logError("Could not announce feed items", error));
    const done = new Set(written.map((w) => w.workspaceId));
    for (const w of batch) {
      // Ids are compared as stored: lower case.
      if (w.items.every((item) => done.has(item.workspaceId.toLowerCase()))) w.resolve();
      else w.reject(new AppError("not_found:workspace", "A feed item names a workspace that does not exist."));
    }
  }

  /**
   * A workspace's feed grew. This writer's own items were handed over at its
   * commit; a range written elsewhere is read once for every follower here,
   * one read per workspace at a time (notices that arrive meanwhile extend
   * it). A notice without a range, or a failed read, wakes the followers and
   * each reads for itself.
   */
  private onNotice(workspaceId: string, message: Record<string, unknown>) {
    if (message.o === this.origin) return;
    const followed = this.followed.get(workspaceId);
    if (!followed) return;
    const first = Number(message.f);
    const last = Number(message.seq);
    if (!Number.isInteger(first) || !Number.isInteger(last) || first > last) {
      for (const listener of this.listeners.of(workspaceId)) listener.wake();
      return;
    }
    if (followed.remote) followed.remote.upTo = Math.max(followed.remote.upTo, last);
    else {
      followed.remote = { after: first - 1, upTo: last };
      void this.readAnnounced(workspaceId, followed, followed.remote);
    }
  }

  private async readAnnounced(workspaceId: string, followed: Followed, range: AnnouncedRange) {
    await readAnnounced(range, {
      read: (after) => {
        this.stats.reads += 1;
        return readFeed(this.db, workspaceId, after, {}, 500);
      },
      followed: () => this.followed.get(workspaceId) === followed,
      deliver: (items) => {
        for (const listener of this.listeners.of(workspaceId)) listener.items(items);
      },
      wake: () => {
        for (const listener of this.listeners.of(workspaceId)) listener.wake();
      },
    });
    followed.remote = undefined;
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
