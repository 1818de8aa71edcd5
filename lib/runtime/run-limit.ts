import { RateLimiterDrizzle, RateLimiterRes } from "rate-limiter-flexible";
import type { Database } from "../db/client";
import { rateLimits } from "../db/schema";
import { AppError } from "../errors";

export interface RunStartLimit {
  /** Runs one person may start per window; 0 means no limit. */
  points: number;
  windowSeconds: number;
}

export type RunStartLimiter = Pick<RateLimiterDrizzle, "consume">;

/**
 * A limiter of run starts per person, counted in the `rate_limits`
 * table with one atomic upsert per start: every server instance on the same
 * database shares the count, and a restart does not reset it.
 */
export function createRunStartLimiter(db: Database, limit: RunStartLimit): RunStartLimiter {
  return new RateLimiterDrizzle({
    storeClient: db,
    schema: rateLimits,
    keyPrefix: "runs",
    points: limit.points,
    duration: limit.windowSeconds,
    // One row per person that is reset in place when its window ends: nothing to sweep.
    clearExpiredByTimeout: false,
  });
}

const cache = new WeakMap<Database, { key: string; limiter: RunStartLimiter }>();

function limiterFor(db: Database, limit: RunStartLimit): RunStartLimiter {
  const key = `${limit.points}/${limit.windowSeconds}`;
  const cached = cache.get(db);
  if (cached?.key === key) return cached.limiter;
  const limiter = createRunStartLimiter(db, limit);
  cache.set(db, { key, limiter });
  return limiter;
}

/** Counts one run start for the person, or throws `rate_limited:runs` with the seconds to wait. */
export async function consumeRunStart(limiter: RunStartLimiter, userId: string, limit: RunStartLimit): Promise<void> {
  try {
    await limiter.consume(userId);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    const retryAfterSeconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
    throw new AppError(
      "rate_limited:runs",
      `You started ${limit.points} runs in ${limit.windowSeconds} s, the most allowed. Try again in ${retryAfterSeconds} s.`,
      { details: { retryAfterSeconds } },
    );
  }
}

/** The run-start limit of the server's configuration, applied to one person (see consumeRunStart). */
export async function limitRunStart(server: { db: Database; env: { CLAWDECK_RUN_START_LIMIT: number; CLAWDECK_RUN_START_WINDOW_SECONDS: number } }, userId: string) {
  const limit = { points: server.env.CLAWDECK_RUN_START_LIMIT, windowSeconds: server.env.CLAWDECK_RUN_START_WINDOW_SECONDS };
  if (limit.points === 0) return;
  await consumeRunStart(limiterFor(server.db, limit), userId, limit);
}
