import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { at } from "./common";

/**
 * Counters of every rate limit (sign-in attempts, run starts), one row per
 * limiter prefix and key, so a limit holds across server instances and
 * restarts. The shape (`key`, `points`, `expire`) is the one
 * rate-limiter-flexible's Drizzle store reads and writes with one atomic upsert.
 */
export const rateLimits = pgTable("rate_limits", {
  key: text().primaryKey(),
  points: integer().notNull(),
  expire: at(),
});
