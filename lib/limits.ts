import { RateLimiterDrizzle, RateLimiterRes } from "rate-limiter-flexible";
import type { Database } from "./db/client";
import { rateLimits } from "./db/schema";
import type { AppError } from "./errors";

/** A limit: `points` actions per key within `windowSeconds`, counted under `prefix` in the `rate_limits` table. */
export interface Limit {
  prefix: string;
  points: number;
  windowSeconds: number;
}

export type Limiter = Pick<RateLimiterDrizzle, "consume">;

/**
 * A limiter counted in the `rate_limits` table with one atomic upsert per
 * action: every server instance on the same database shares the count, and a
 * restart does not reset it.
 */
export function createLimiter(db: Database, limit: Limit): Limiter {
  return new RateLimiterDrizzle({
    storeClient: db,
    schema: rateLimits,
    keyPrefix: limit.prefix,
    points: limit.points,
    duration: limit.windowSeconds,
    // One row per key that is reset in place when its window ends: nothing to sweep.
    clearExpiredByTimeout: false,
  });
}

const cache = new WeakMap<Database, Map<string, Limiter>>();

/** The limiter of this database and limit, made once per process. */
export function limiterFor(db: Database, limit: Limit): Limiter {
  const key = `${limit.prefix}/${limit.points}/${limit.windowSeconds}`;
  const byLimit = cache.get(db) ?? new Map<string, Limiter>();
  cache.set(db, byLimit);
  const found = byLimit.get(key);
  if (found) return found;
  const made = createLimiter(db, limit);
  byLimit.set(key, made);
  return made;
}

/** Counts `points` actions (one by default) for `key`, or throws `refusal(seconds to wait)` (a `rate_limited:*` error with `retryAfterSeconds`). */
export async function consumeLimit(limiter: Limiter, key: string, refusal: (retryAfterSeconds: number) => AppError, points = 1): Promise<void> {
  try {
    await limiter.consume(key, points);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    throw refusal(Math.max(1, Math.ceil(error.msBeforeNext / 1000)));
  }
}
