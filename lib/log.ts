import { DrizzleQueryError } from "drizzle-orm/errors";
import { knownSecrets, Redactor } from "./secret-redactor";

/** Longest message kept from an error that is not a query failure (a parse error may quote the text it read). */
const MAX_MESSAGE = 300;

interface PgLike {
  code?: unknown;
  constraint?: unknown;
  table?: unknown;
  column?: unknown;
  routine?: unknown;
}

function isQueryError(error: unknown): error is DrizzleQueryError {
  return (
    error instanceof DrizzleQueryError ||
    (error instanceof Error && typeof (error as { query?: unknown }).query === "string" && Array.isArray((error as { params?: unknown }).params))
  );
}

function pgSummary(error: PgLike): string | null {
  if (typeof error.code !== "string" || !/^[0-9A-Z]{5}$/.test(error.code)) return null;
  // The server's message and detail quote the values that failed (`invalid input syntax for type uuid: "…"`): never logged.
  const parts = [`pg ${error.code}`];
  for (const key of ["constraint", "table", "column", "routine"] as const) {
    const value = error[key];
    if (typeof value === "string" && value) parts.push(`${key} ${value}`);
  }
  return parts.join(", ");
}

/**
 * One line (plus stack frames) that says what failed without the data it
 * failed on: a failed query shows its SQL but never its parameters (the
 * people's text), a database error its code but not its message, and every
 * other message is cut short and scrubbed of the secrets this process holds.
 */
export function describeError(error: unknown, secrets: Iterable<string> = []): string {
  const redactor = new Redactor([...knownSecrets(), ...secrets]);
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const pg = current && typeof current === "object" ? pgSummary(current as PgLike) : null;
    if (pg) {
      parts.push(pg);
    } else if (isQueryError(current)) {
      parts.push(`failed query: ${redactor.text(current.query)}`);
    } else if (current instanceof Error) {
      const message = current.message.length > MAX_MESSAGE ? `${current.message.slice(0, MAX_MESSAGE)}…` : current.message;
      parts.push(`${current.name}: ${redactor.text(message)}`);
    } else if (typeof current === "object") {
      parts.push("non-error object thrown");
    } else {
      parts.push(redactor.text(String(current).slice(0, MAX_MESSAGE)));
    }
    current = (current as { cause?: unknown })?.cause;
  }
  return [parts.join(" <- caused by "), ...stackFrames(error)].join("\n");
}

/** The stack's frames without its header: the header repeats the message, which may span lines. */
function stackFrames(error: unknown): string[] {
  if (!(error instanceof Error) || !error.stack) return [];
  const header = error.stack.startsWith(`${error.name}: ${error.message}`) ? `${error.name}: ${error.message}`.split("\n").length : 1;
  return error.stack
    .split("\n")
    .slice(header)
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 8);
}

/** Logs a failure as `describeError` summarises it: use this, never `console.error(error)`. */
export function logError(context: string, error: unknown, options: { secrets?: Iterable<string> } = {}): void {
  console.error(`${context}: ${describeError(error, options.secrets)}`);
}
