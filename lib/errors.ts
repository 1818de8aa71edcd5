/**
 * One error type for the whole product. A code reads `kind:surface`
 * (`not_found:approval`, `forbidden:workspace`); the kind decides the HTTP
 * status, the surface says what it is about. The same shape travels as JSON
 * and as an SSE `error` event, and the browser rebuilds it from `code`.
 */
export const errorKinds = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorKind = keyof typeof errorKinds;
export type ErrorCode = `${ErrorKind}:${string}`;

const defaultMessages: Record<ErrorKind, string> = {
  bad_request: "The request is not valid.",
  unauthorized: "Sign in to continue.",
  forbidden: "You do not have access to this.",
  not_found: "Not found.",
  conflict: "This conflicts with the current state.",
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

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly details?: unknown;

  constructor(code: ErrorCode, message?: string, options?: { details?: unknown; cause?: unknown }) {
    const kind = code.slice(0, code.indexOf(":")) as ErrorKind;
    super(message ?? defaultMessages[kind] ?? "Error", { cause: options?.cause });
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

  /** Rebuilds an error from a JSON body (the browser side of the contract). */
  static fromBody(body: unknown, fallbackStatus = 500): AppError {
    if (body && typeof body === "object" && "code" in body && typeof body.code === "string" && body.code.includes(":")) {
      const b = body as Partial<ErrorBody>;
      return new AppError(b.code as ErrorCode, b.message, { details: b.details });
    }
    return new AppError(fallbackStatus >= 500 ? "internal:response" : "bad_request:response");
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
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
