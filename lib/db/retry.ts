import { pgErrorCode } from "../errors";

/** SQLSTATEs after which the same transaction, tried again, can succeed. */
const TRANSIENT_SQLSTATES = new Set([
  "40001", // serialization_failure
  "40P01", // deadlock_detected
  "57P01", // admin_shutdown (the server restarted)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now (the server is starting)
]);
/** Errors of the socket under the driver (node) and of postgres.js's own connection handling. */
const TRANSIENT_NODE_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT"]);

/**
 * True for a database failure that says nothing about the statement itself:
 * a lost or refused connection, a server shutting down, a serialization
 * failure or deadlock. Walks the `cause` chain (Drizzle wraps driver errors).
 */
export function isTransientDbError(error: unknown): boolean {
  const sqlstate = pgErrorCode(error);
  if (sqlstate && (TRANSIENT_SQLSTATES.has(sqlstate) || sqlstate.startsWith("08"))) return true;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && TRANSIENT_NODE_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export interface RetryOptions {
  /** Attempts in all, the first included. */
  attempts?: number;
  /** First pause; doubled after each failure, with jitter, capped at `maxDelayMs`. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: (error: unknown, attempt: number) => void;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` (one transaction, or one statement) again after a transient
 * database error, with exponential backoff; any other error, or the last
 * transient one, is thrown. `work` must be safe to repeat: every write of
 * run state is one transaction with a conditional update, so a retry after
 * a rollback does it once.
 */
export async function withDbRetry<T>(work: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 6;
  const base = options.baseDelayMs ?? 100;
  const max = options.maxDelayMs ?? 5_000;
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isTransientDbError(error)) throw error;
      options.onRetry?.(error, attempt);
      const delay = Math.min(max, base * 2 ** (attempt - 1));
      await sleep(delay / 2 + Math.random() * (delay / 2));
    }
  }
}
