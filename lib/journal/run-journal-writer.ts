import type { Database } from "../db/client";
import { cleanDeep } from "../text";
import type { EventBus } from "../db/bus";
import { withDbRetry } from "../db/retry";
import { FlushLoop, KeyedListeners, readAnnounced, type AnnouncedRange } from "../db/group-commit";
import { isTerminal, parseRunEvent, type RunEvent, type RunEventInput } from "./run-events";
import { readRunEvents, RunLostError, writeJournalRows, type InStatementNotice } from "./run-journal-store";

/**
 * The process's journal writer: every run driven here appends through it,
 * and it writes them together (group commit). A flush starts as soon as the
 * previous one returns, with everything that arrived meanwhile: one
 * statement that allocates each run's sequence numbers in the run rows and
 * inserts the rows (`writeJournalRows`, the journal's one write). Adjacent text of one run waiting in the
 * same flush becomes one row, so an idle process writes each delta at once
 * and a busy one writes fewer, larger rows without any waiting window.
 *
 * Persist before emit: after the commit (never before), subscribers of this
 * process get the committed events from memory, and one notification per
 * flush (`journalTopic`) names the sequence ranges written, for other
 * processes. On PostgreSQL a run's range carries its rows too when they are
 * small (a model's text as it streams), so the other processes hand them over
 * without reading them; a larger range is read once there for all its
 * subscribers.
 */
export const journalTopic = "journal";

/**
 * A run's rows in a notification: its id and first and last sequence, and, when the rows travel with it, each row's
 * type and stored payload in sequence order.
 */
type Range = [string, number, number] | [string, number, number, [string, unknown][]];
/** What one notification says: who wrote it, when the rows were written (`a`, with carried rows), and the runs' ranges. */
type Ranges = { o: string; a?: string; r: Range[] };
/** Runs named in one notification the local bus sends. */
const RANGES_PER_NOTICE = 80;
/**
 * A notification of PostgreSQL's must stay under 8,000 bytes. A run's rows travel with its range when they take at
 * most `CARRIED_BYTES` as JSON, and the ranges are split into notifications by their running size: a notification
 * holds under `NOTICE_BYTES` of ranges plus one more range (at most `CARRIED_BYTES` and its id), well under the limit
 * with the envelope.
 */
export const CARRIED_BYTES = 1_200;
const NOTICE_BYTES = 6_000;
/** Events a slow subscriber may hold in memory before it falls back to reading the journal. */
export const MEMORY_QUEUE_LIMIT = 2_000;

export interface JournalListener {
  /** Committed events of the run, in sequence order, straight from memory. */
  events(events: RunEvent[]): void;
  /** The journal grew somewhere this process did not see: read it. */
  wake(): void;
}

interface Pending {
  runId: string;
  owner: string;
  events: RunEventInput[];
  closed: boolean;
  waiters: { resolve: (seq: number) => void; reject: (error: unknown) => void }[];
}

let writerCount = 0;

export class JournalWriter {
  /** Runs with events waiting for the next flush, in arrival order. */
  private pending = new Map<string, Pending>();
  private readonly loop = new FlushLoop(
    () => this.pending.size > 0,
    () => this.flush(),
  );
  private readonly listeners = new KeyedListeners<JournalListener>();
  /** Runs announced by other writers: rows handed over so far, and the last one announced. */
  private readonly remote = new Map<string, AnnouncedRange>();
  /** Names this writer in its notifications, so that its own process can tell what it was handed from memory already. */
  readonly origin = `w${process.pid}-${++writerCount}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly unsubscribe: () => void;
  /**
   * For the benchmark: flushes (transactions) and rows written so far; rows of other writers handed over from their
   * notifications, and reads of announced ranges.
   */
  readonly stats = { flushes: 0, rows: 0, carried: 0, reads: 0 };
  /** Benchmark seam: false reads every announced range, rows carried or not (how other writers' rows came before). */
  takeCarried = true;
  /** Test seam: commit the next flush, then stop as a crashed process would (no emit, no notification). */
  crashAfterCommit = false;

  constructor(
    private readonly db: Database,
    private readonly bus: EventBus,
  ) {
    this.unsubscribe = bus.subscribe(journalTopic, (message) => this.onNotice(message as Ranges));
  }

  /**
   * Queues events of a run for the next flush; resolves with the run's last
   * sequence number once they are committed (and handed to local
   * subscribers). Rejects with `RunLostError` when the run is no longer
   * driven by `owner` or its journal is closed.
   */
  append(runId: string, owner: string, events: RunEventInput[]): Promise<number> {
    if (events.length === 0) return Promise.resolve(0);
    const closes = events.findIndex((e) => isTerminal(e.type));
    if (closes >= 0 && closes !== events.length - 1) return Promise.reject(new Error("A terminal event must be the last one written."));
    let entry = this.pending.get(runId);
    if (entry && (entry.owner !== owner || entry.closed)) return Promise.reject(new RunLostError(runId));
    if (!entry) {
      entry = { runId, owner, events: [], closed: false, waiters: [] };
      this.pending.set(runId, entry);
    }
    for (const event of events) joinEvent(entry.events, event);
    entry.closed = closes >= 0;
    const promise = new Promise<number>((resolve, reject) => entry.waiters.push({ resolve, reject }));
    this.loop.schedule();
    return promise;
  }

  /** Follows one run's journal in this process. Returns the unsubscribe function. */
  listen(runId: string, listener: JournalListener): () => void {
    return this.listeners.add(runId, listener);
  }

  /**
   * Events of a run committed by another statement of this process (the one
   * that ends a run writes its terminal event itself): handed to the run's
   * followers here from memory, as a flush's are. Call only after the commit,
   * once the run's earlier events were handed over.
   */
  handOver(runId: string, events: RunEvent[]) {
    for (const listener of this.listeners.of(runId)) listener.events(events);
  }

  /** The run's journal may have grown where this process did not see it: its followers here read it. */
  wake(runId: string) {
    for (const listener of this.listeners.of(runId)) listener.wake();
  }

  close() {
    this.unsubscribe();
  }

  /** Where the flush's own statement sends its notification, when the bus is the database's LISTEN/NOTIFY. */
  private inStatementNotice(): InStatementNotice | undefined {
    return this.bus.channel
      ? { channel: this.bus.channel, origin: this.origin, topic: journalTopic, carriedBytes: CARRIED_BYTES, noticeBytes: NOTICE_BYTES }
      : undefined;
  }

  /** Takes every run's waiting events and writes them as one flush. */
  private async flush() {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    await this.write(batch);
  }

  private async write(batch: Pending[]) {
    let written: Map<string, number>;
    const at = new Date();
    try {
      // One statement for the whole batch: after a transient database error it is tried again whole.
      written = await withDbRetry(() => writeJournalRows(this.db, batch, at, this.inStatementNotice()));
    } catch (error) {
      for (const entry of batch) for (const w of entry.waiters) w.reject(error);
      return;
    }
    if (this.crashAfterCommit) {
      this.crashAfterCommit = false;
      for (const entry of batch) for (const w of entry.waiters) w.reject(new Error("The process stopped after the commit."));
      return;
    }
    const ranges: [string, number, number][] = [];
    const iso = at.toISOString();
    for (const entry of batch) {
      const last = written.get(entry.runId);
      if (last === undefined) {
        for (const w of entry.waiters) w.reject(new RunLostError(entry.runId));
        continue;
      }
      const first = last - entry.events.length + 1;
      ranges.push([entry.runId, first, last]);
      this.stats.rows += entry.events.length;
      if (this.listeners.has(entry.runId)) {
        // What a reader of the rows gets: the stored (cleaned, JSON) payload through the same parser.
        const events = entry.events
          .map((e, i) => parseRunEvent(e.type, first + i, iso, JSON.parse(JSON.stringify(cleanDeep(e.payload)))))
          .filter((e): e is RunEvent => e !== null);
        for (const listener of this.listeners.of(entry.runId)) listener.events(events);
      }
      for (const w of entry.waiters) w.resolve(last);
    }
    this.stats.flushes += 1;
    // On PostgreSQL the statement that wrote the rows also sent the notification.
    if (this.inStatementNotice()) return;
    for (let i = 0; i < ranges.length; i += RANGES_PER_NOTICE) {
      const notice: Ranges = { o: this.origin, r: ranges.slice(i, i + RANGES_PER_NOTICE) };
      // Not awaited: the next flush need not wait for it (the bus sends in order on one connection).
      // Subscribers elsewhere catch up on their heartbeat if a notification is lost.
      void this.bus.publish(journalTopic, notice).catch(() => undefined);
    }
  }

  /**
   * Another process (or writer) committed rows: read the announced rows of
   * a run once for every subscriber of it here, and hand them over as if
   * they had been written here. One read per run at a time; notifications
   * that arrive meanwhile extend the next read. A failed read wakes the
   * subscribers instead, and each reads for itself.
   */
  private onNotice(message: Ranges) {
    if (message.o === this.origin || !Array.isArray(message.r)) return;
    for (const range of message.r) {
      if (!Array.isArray(range) || !this.listeners.has(range[0])) continue;
      const [runId, first, last] = range;
      const state = this.remote.get(runId);
      if (state) {
        // A read of this run is under way: it reads on to here, so the rows are handed over in order.
        state.upTo = Math.max(state.upTo, last);
        continue;
      }
      const carried = this.takeCarried ? carriedEvents(range, message.a) : null;
      if (carried) {
        // Each follower takes them only if they continue what it has, and reads the journal otherwise.
        for (const listener of this.listeners.of(runId)) listener.events(carried);
        this.stats.carried += carried.length;
        continue;
      }
      this.remote.set(runId, { after: first - 1, upTo: last });
      void this.readAnnounced(runId);
    }
  }

  private async readAnnounced(runId: string) {
    await readAnnounced(this.remote.get(runId)!, {
      read: (after) => {
        this.stats.reads += 1;
        return readRunEvents(this.db, runId, after, 500);
      },
      followed: () => this.listeners.has(runId),
      deliver: (events) => {
        for (const listener of this.listeners.of(runId)) listener.events(events);
      },
      wake: () => {
        for (const listener of this.listeners.of(runId)) listener.wake();
      },
    });
    this.remote.delete(runId);
  }

}

/**
 * The rows a notification carries for a range, as a reader of the journal gets them (the same parser, the stored
 * payload, the flush's time), or null when it carries none or not all of them.
 */
function carriedEvents(range: Range, at: string | undefined): RunEvent[] | null {
  const [, first, last, rows] = range;
  if (!Array.isArray(rows) || typeof at !== "string" || !Number.isInteger(first) || rows.length !== last - first + 1) return null;
  const events: RunEvent[] = [];
  for (const [i, row] of rows.entries()) {
    if (!Array.isArray(row) || typeof row[0] !== "string") return null;
    // A row the parser refuses is skipped, as a read skips it.
    const event = parseRunEvent(row[0], first + i, at, row[1]);
    if (event) events.push(event);
  }
  return events;
}

/** Adjacent text (or thinking) of one run waiting for the same flush is one row. */
function joinEvent(events: RunEventInput[], event: RunEventInput) {
  const last = events[events.length - 1];
  if (last && (last.type === "text" || last.type === "thinking") && last.type === event.type) {
    last.payload = { delta: last.payload.delta + (event.payload as { delta: string }).delta };
  } else {
    events.push(event.type === "text" || event.type === "thinking" ? { ...event, payload: { ...event.payload } } : event);
  }
}

/**
 * Next bundles library code into several server chunks, so this module can be
 * loaded more than once in a process: the registry lives on `globalThis`,
 * so that the runs driven from one route and the streams of another share a writer.
 */
const registry = globalThis as typeof globalThis & { [key: symbol]: WeakMap<object, JournalWriter> | undefined };
const REGISTRY_KEY = Symbol.for("clawdeck.journalWriters");

/** The one writer of a database handle in this process (created on first use, with the bus it is given then). */
export function journalWriterFor(db: Database, bus: EventBus): JournalWriter {
  const writers = (registry[REGISTRY_KEY] ??= new WeakMap());
  let writer = writers.get(db);
  if (!writer) writers.set(db, (writer = new JournalWriter(db, bus)));
  return writer;
}
