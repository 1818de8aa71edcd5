import type { Db } from "../db/client";
import type { RunFacts } from "./access";
import { runFactsByIds } from "./reads";

/** Runs whose facts a process keeps; past this the oldest are dropped and read again when needed. */
const CAPACITY = 20_000;

/**
 * The facts the access rules need about a run (its person, trigger and chat),
 * read once per process for every event stream that shapes items of that run.
 * They are set when the run is created and never changed, so a kept answer
 * cannot grant what the table would refuse. Concurrent asks for the same run
 * share one read; a run not found is not kept (it is read again next time).
 */
export class RunFactsCache {
  private readonly known = new Map<string, Promise<RunFacts | undefined>>();

  constructor(private readonly db: Db) {}

  get(workspaceId: string, runId: string): Promise<RunFacts | undefined> {
    const key = `${workspaceId}:${runId}`;
    const kept = this.known.get(key);
    if (kept) return kept;
    const read = runFactsByIds(this.db, workspaceId, [runId]).then(
      (found) => {
        const facts = found.get(runId);
        if (!facts) this.known.delete(key);
        return facts;
      },
      (error: unknown) => {
        this.known.delete(key);
        throw error;
      },
    );
    this.known.set(key, read);
    if (this.known.size > CAPACITY) this.known.delete(this.known.keys().next().value!);
    return read;
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
