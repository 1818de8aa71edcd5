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

/** Counts one run start for the person, or throws `rate_limited:runs` with the seconds to wait. */
export async function consumeRunStart(limiter: RunStartLimiter, userId: string, limit: RunStartLimit): Promise<void> {
  await consumeLimit(
    limiter,
    userId,
    (retryAfterSeconds) =>
      new AppError("rate_limited:runs", `You started ${limit.points} runs in ${limit.windowSeconds} s, the most allowed. Try again in ${retryAfterSeconds} s.`, {
        details: { retryAfterSeconds },
      }),
  );
}

/** The run-start limit of the server's configuration, applied to one person (see consumeRunStart). */
export async function limitRunStart(server: { db: Database; env: { CLAWDECK_RUN_START_LIMIT: number; CLAWDECK_RUN_START_WINDOW_SECONDS: number } }, userId: string) {
  const limit = { points: server.env.CLAWDECK_RUN_START_LIMIT, windowSeconds: server.env.CLAWDECK_RUN_START_WINDOW_SECONDS };
  if (limit.points === 0) return;
  await consumeRunStart(limiterFor(server.db, { prefix: "runs", ...limit }), userId, limit);
}
