import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "drizzle-orm/logger";

const recording = new AsyncLocalStorage<string[]>();

/**
 * Drizzle's logger for every connection: when the calling code runs inside
 * `recordQueries`, the statement's text is appended to that recording;
 * otherwise it costs one lookup and keeps nothing.
 */
export const queryRecorder: Logger = {
  logQuery(query: string) {
    recording.getStore()?.push(query);
  },
};

/**
 * Runs `fn` and returns the SQL statements it sent (in order), counting
 * everything started from inside it. Used to measure how many round trips a
 * request makes, a figure that does not depend on the machine's load.
 */
export async function recordQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
  const queries: string[] = [];
  const result = await recording.run(queries, fn);
  return { result, queries: [...queries] };
}
