import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { at } from "./common";

/**
 * Counters of the run-start limit (see lib/http/run-limit.ts), one row per
 * person and window, so the limit holds across server instances. The shape
 * (`key`, `points`, `expire`) is the one rate-limiter-flexible's Drizzle
 * store reads and writes with one atomic upsert.
 */
export const runStartLimits = pgTable("run_start_limits", {
  key: text().primaryKey(),
  points: integer().notNull().default(0),
  expire: at(),
});
