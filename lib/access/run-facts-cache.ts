import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns } from "../db/schema";
import type { RunFacts } from "./access";

/** The facts the rules need about each of these runs (one query). */
export async function runFactsByIds(db: Db, workspaceId: string, runIds: (string | null | undefined)[]): Promise<Map<string, RunFacts>> {
  const ids = [...new Set(runIds.filter((id): id is string => !!id))];
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: agentRuns.id, userId: agentRuns.userId, trigger: agentRuns.trigger, sessionId: agentRuns.sessionId })
    .from(agentRuns)
    .where(and(eq(agentRuns.workspaceId, workspaceId), inArray(agentRuns.id, ids)));
  return new Map(rows.map((r) => [r.id, { userId: r.userId, trigger: r.trigger, sessionId: r.sessionId }]));
}

const keyOf = (workspaceId: string, runId: string) => `${workspaceId}:${runId}`;

/** Runs whose facts a process keeps; past this the oldest are dropped and read again when needed. */
const CAPACITY = 20_000;

/**
 * The facts the access rules need about a run (its person, trigger and chat),
 * read once per process for every event stream that shapes items of that run.
 * They are set when the run is created and never changed, so a kept answer
 * cannot grant what the table would refuse. Concurrent asks for the same run
 * share one read; a run not found is not kept (it is read again next time).
 * The process that creates a run tells the cache its facts, so the run's own
 * streams in that process read none; the process that deletes runs (with
 * their chat) forgets them. Another process may still know a deleted run:
 * its streams there find no events, as they would had they opened before
 * the deletion, and nothing else. Ids are compared as PostgreSQL writes
 * them, in lower case: a route normalises an id it is given.
 */
export class RunFactsCache {
  private readonly known = new Map<string, Promise<RunFacts | undefined>>();
  /** Reads of the table this cache sent: one per batch of runs it did not know. */
  readonly stats = { reads: 0 };

  constructor(private readonly db: Db) {}

  /** The facts of a run this process has just created (and committed). */
  remember(workspaceId: string, runId: string, facts: RunFacts): void {
    const key = keyOf(workspaceId, runId);
    if (this.known.has(key)) return;
    this.known.set(key, Promise.resolve({ userId: facts.userId, trigger: facts.trigger, sessionId: facts.sessionId }));
    this.trim();
  }

  /** Runs this process deleted. */
  forget(workspaceId: string, runIds: string[]): void {
    for (const runId of runIds) this.known.delete(keyOf(workspaceId, runId));
  }

  /**
   * Starts one read for the runs of a batch (a feed flush naming many new runs) that are not known yet, so that the
   * `get` of each, made one item after another, waits for that read instead of sending its own after the previous one.
   */
  prefetch(workspaceId: string, runIds: (string | null | undefined)[]): void {
    const missing = [...new Set(runIds.filter((id): id is string => !!id))].filter((id) => !this.known.has(keyOf(workspaceId, id)));
    if (missing.length === 0) return;
    this.stats.reads += 1;
    const read = runFactsByIds(this.db, workspaceId, missing);
    for (const runId of missing) this.keep(workspaceId, runId, read.then((found) => found.get(runId)));
  }

  get(workspaceId: string, runId: string): Promise<RunFacts | undefined> {
    const key = keyOf(workspaceId, runId);
    const kept = this.known.get(key);
    if (kept) return kept;
    this.stats.reads += 1;
    return this.keep(workspaceId, runId, runFactsByIds(this.db, workspaceId, [runId]).then((found) => found.get(runId)));
  }

  /** Keeps a read of a run's facts for every later ask; a run not found, or a failed read, is forgotten again. */
  private keep(workspaceId: string, runId: string, read: Promise<RunFacts | undefined>): Promise<RunFacts | undefined> {
    const key = keyOf(workspaceId, runId);
    const kept: Promise<RunFacts | undefined> = read.then(
      (facts) => {
        if (!facts && this.known.get(key) === kept) this.known.delete(key);
        return facts;
      },
      (error: unknown) => {
        if (this.known.get(key) === kept) this.known.delete(key);
        throw error;
      },
    );
    // A batch's read may fail for runs nobody asks about after all: that is no unhandled rejection.
    kept.catch(() => undefined);
    this.known.set(key, kept);
    this.trim();
    return kept;
  }

  private trim() {
    if (this.known.size > CAPACITY) this.known.delete(this.known.keys().next().value!);
  }
}

/** See journal-writer.ts: the registry lives on `globalThis`, shared by every server chunk that loads this module. */
const registry = globalThis as typeof globalThis & { [key: symbol]: WeakMap<object, RunFactsCache> | undefined };
const REGISTRY_KEY = Symbol.for("clawdeck.runFactsCaches");

/** The one run-facts cache of a database handle in this process. */
export function runFactsCache(db: Db): RunFactsCache {
  const caches = (registry[REGISTRY_KEY] ??= new WeakMap());
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new RunFactsCache(db)));
  return cache;
}
