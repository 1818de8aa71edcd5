import { AppError, isAppError, pgErrorCode } from "../errors";
import { DataFolderInUseError } from "../db/folder-lock";
import { logError } from "../log";
import { jsonResponse } from "./json";

/** Turns anything thrown into an AppError without re-wrapping one that already has a code. */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) {
    if (Object.getPrototypeOf(error) === AppError.prototype) return error;
    // One made by another bundle's copy of the class: same brand, other prototype.
    const foreign = error as { code: AppError["code"]; message: unknown; details?: unknown };
    return AppError.fromCode(foreign.code, typeof foreign.message === "string" ? foreign.message : undefined, { details: foreign.details, cause: error });
  }
  if (error instanceof DataFolderInUseError) return new AppError("unavailable:database", "The database is in use by another process.");
  const pgCode = pgErrorCode(error);
  const sysCode = (error as { code?: unknown; cause?: { code?: unknown } })?.cause?.code ?? (error as { code?: unknown })?.code;
  if ((pgCode && pgCode.startsWith("08")) || pgCode === "57P01" || sysCode === "ECONNREFUSED" || sysCode === "CONNECTION_CLOSED") {
    return new AppError("unavailable:database", "The database cannot be reached. Try again shortly.");
  }
  logError("Unhandled error", error);
  return new AppError("internal:server");
}

export function errorResponse(error: unknown): Response {
  const appError = toAppError(error);
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  const retryAfter = (appError.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  if (appError.kind === "rate_limited" && typeof retryAfter === "number" && retryAfter > 0) headers["Retry-After"] = String(Math.ceil(retryAfter));
  return jsonResponse(appError.toJSON(), { status: appError.status, headers });
}
