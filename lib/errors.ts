/**
 * One error type for the whole product. A code reads `kind:surface`
 * (`not_found:approval`, `forbidden:workspace`); the kind decides the HTTP
 * status, the surface says what it is about. The same shape travels as JSON
 * and as an SSE `stream_error` event, and the browser rebuilds it from `code`.
 *
 * Next bundles library code into several chunks, so one process can hold
 * several `AppError` classes: never test with `instanceof`, ask `isAppError`,
 * which reads a brand shared by every copy of the class.
 */
import type { KnownErrorCode } from "./error-sentences";

export const errorKinds = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorKind = keyof typeof errorKinds;
export type ErrorCode = `${ErrorKind}:${string}`;

export const defaultErrorMessages: Record<ErrorKind, string> = {
  bad_request: "The request is not valid.",
  unauthorized: "Sign in to continue.",
  forbidden: "You do not have access to this.",
  not_found: "Not found.",
  conflict: "This conflicts with the current state.",
  payload_too_large: "The request is too large.",
  unprocessable: "The request cannot be processed.",
  rate_limited: "Too many requests. Try again later.",
  internal: "Something went wrong on our side.",
  unavailable: "The service is unavailable. Try again later.",
};

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: unknown;
}

/** Shared by every copy of the class, whichever bundle made it. */
const APP_ERROR_BRAND = Symbol.for("clawdeck.AppError");

export class AppError extends Error {
  readonly [APP_ERROR_BRAND] = true;
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly details?: unknown;

  constructor(code: KnownErrorCode, message?: string, options?: { details?: unknown; cause?: unknown }) {
    const kind = code.slice(0, code.indexOf(":")) as ErrorKind;
    super(message ?? defaultErrorMessages[kind] ?? "Error", { cause: options?.cause });
    this.name = "AppError";
    this.code = code;
    this.kind = kind in errorKinds ? kind : "internal";
    this.details = options?.details;
  }

  get status(): number {
    return errorKinds[this.kind];
  }

  toJSON(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message };
    if (this.details !== undefined) body.details = this.details;
    return body;
  }

  /**
   * An error whose code was read rather than written here (an answer of the server, another bundle's copy of the
   * class, a provider's failure mapped to a code): it may be one this version has no sentence for, and its kind still
   * gives its status. Code written in this codebase uses `new AppError`, whose codes are the closed list of
   * `lib/error-sentences.ts`, so a typo fails the typecheck.
   */
  static fromCode(code: ErrorCode, message?: string, options?: { details?: unknown; cause?: unknown }): AppError {
    return new AppError(code as KnownErrorCode, message, options);
  }

  /** Rebuilds an error from a JSON body (the browser side of the contract). */
  static fromBody(body: unknown, fallbackStatus = 500): AppError {
    if (body && typeof body === "object" && "code" in body && typeof body.code === "string" && isErrorCode(body.code)) {
      const b = body as Partial<ErrorBody>;
      return AppError.fromCode(b.code as ErrorCode, typeof b.message === "string" ? b.message : undefined, { details: b.details });
    }
    return AppError.fromCode(`${kindForStatus(fallbackStatus)}:response`);
  }
}

/** Whether a string is a code of a known kind (`conflict:run`), not a typo or a foreign code. */
export function isErrorCode(code: string): code is ErrorCode {
  const colon = code.indexOf(":");
  return colon > 0 && colon < code.length - 1 && Object.hasOwn(errorKinds, code.slice(0, colon));
}

/** The kind whose status is exactly `status`, else internal (5xx) or bad_request (4xx). */
export function kindForStatus(status: number): ErrorKind {
  const exact = (Object.keys(errorKinds) as ErrorKind[]).find((kind) => errorKinds[kind] === status);
  if (exact) return exact;
  return status >= 500 ? "internal" : "bad_request";
}

/**
 * Whether something thrown is an application error, from whichever bundle
 * (or realm) its class came: it carries the brand and a code of a known kind.
 */
export function isAppError(error: unknown): error is AppError {
  if (!error || typeof error !== "object") return false;
  const candidate = error as { [APP_ERROR_BRAND]?: unknown; code?: unknown; message?: unknown };
  return candidate[APP_ERROR_BRAND] === true && typeof candidate.code === "string" && isErrorCode(candidate.code);
}

/** The message of an application error, for showing to a person; anything else gets the fallback. */
export function errorMessage(error: unknown, fallback: string): string {
  return isAppError(error) ? error.message : fallback;
}

/**
 * The SSE event a server stream sends when it fails, with an `ErrorBody` as
 * data. Not `error`: EventSource fires its own `error` event on every drop,
 * and a listener could not tell a server's message from a lost connection.
 */
export const STREAM_ERROR_EVENT = "stream_error";

/** Rebuilds the error a `stream_error` frame carries (its data is an `ErrorBody` as JSON). */
export function streamErrorFromData(data: string): AppError {
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {
    body = undefined;
  }
  return AppError.fromBody(body, 503);
}

/**
 * Postgres error code of a failed query, read through Drizzle's wrapper.
 * Driver classes differ (and PGlite's is minified), so never use instanceof.
 */
export function pgErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export const PG_UNIQUE_VIOLATION = "23505";

/** The constraint a PostgreSQL error names (postgres.js: `constraint_name`, PGlite: `constraint`), through wrappers. */
export function pgConstraint(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const named = (current as { constraint_name?: unknown; constraint?: unknown }).constraint_name ?? (current as { constraint?: unknown }).constraint;
    if (typeof named === "string" && named) return named;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
