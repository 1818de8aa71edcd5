import type { Database } from "../db/client";
import { AppError } from "../errors";
import { consumeLimit, createLimiter, limiterFor, type Limiter } from "../limits";

export interface RunStartLimit {
  /** Runs one person may start per window; 0 means no limit. */
  points: number;
  windowSeconds: number;
}

export type RunStartLimiter = Limiter;

/** A limiter of run starts per person (see lib/limits.ts: counted in the database, shared by every instance). */
export function createRunStartLimiter(db: Database, limit: RunStartLimit): RunStartLimiter {
  return createLimiter(db, { prefix: "runs", ...limit });
}

/**
 * Counts `runs` run starts (a mission counts every run it may start) for the person, or throws `rate_limited:runs`
 * with the seconds to wait; nothing is counted then. More runs than the whole window allows are refused at once.
 */
export async function consumeRunStart(limiter: RunStartLimiter, userId: string, limit: RunStartLimit, runs = 1): Promise<void> {
  if (runs > limit.points) {
    throw new AppError(
      "rate_limited:runs",
      `This starts up to ${runs} runs, more than the ${limit.points} one person may start in ${limit.windowSeconds} s. Ask the operator to raise the limit.`,
      { details: { runs, limit: limit.points } },
    );
  }
  await consumeLimit(
    limiter,
    userId,
    (retryAfterSeconds) =>
      new AppError(
        "rate_limited:runs",
        runs === 1
          ? `You started ${limit.points} runs in ${limit.windowSeconds} s, the most allowed. Try again in ${retryAfterSeconds} s.`
          : `This starts up to ${runs} runs, more than you have left of the ${limit.points} allowed in ${limit.windowSeconds} s. Try again in ${retryAfterSeconds} s.`,
        { details: { retryAfterSeconds } },
      ),
    runs,
  );
}

export type RunLimitServer = { db: Database; env: { CLAWDECK_RUN_START_LIMIT: number; CLAWDECK_RUN_START_WINDOW_SECONDS: number } };

/** The run-start limit of the server's configuration, applied to one person or door token (see consumeRunStart). */
export async function limitRunStart(server: RunLimitServer, key: string, runs = 1) {
  const limit = { points: server.env.CLAWDECK_RUN_START_LIMIT, windowSeconds: server.env.CLAWDECK_RUN_START_WINDOW_SECONDS };
  if (limit.points === 0) return;
  await consumeRunStart(limiterFor(server.db, { prefix: "runs", ...limit }), key, limit, runs);
}
