import { z } from "zod";
import { AppError } from "../errors";
import { truncate } from "../text";

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** The longest range a dashboard or report may ask for. */
export const MAX_RANGE_DAYS = 400;

/** A range of whole UTC hours, `from` inclusive, `to` exclusive: exactly the rollup buckets it covers. */
export interface HourRange {
  from: Date;
  to: Date;
}

export const floorHour = (d: Date) => new Date(Math.floor(d.getTime() / HOUR_MS) * HOUR_MS);
export const ceilHour = (d: Date) => new Date(Math.ceil(d.getTime() / HOUR_MS) * HOUR_MS);

/** Widens a range to whole hours (rollups are hourly): the hour `from` falls in, up to the end of the hour before `to`. */
export function toHourRange(from: Date, to: Date): HourRange {
  const start = floorHour(from);
  const end = ceilHour(to);
  return { from: start, to: end.getTime() > start.getTime() ? end : new Date(start.getTime() + HOUR_MS) };
}

function rangeError(field: "from" | "to", message: string): AppError {
  return new AppError("bad_request:range", message, { details: [{ path: field, message }] });
}

const isoTimestamp = z.iso.datetime({ offset: true });

/**
 * An ISO 8601 date and time with an offset (`2026-01-31T00:00:00Z`). Anything
 * else (an impossible date, a bare day, a year before 1 or after 9999) is
 * refused with `bad_request:range`, never handed to the database.
 */
const timestamp = (field: "from" | "to") =>
  z.string().transform((value) => {
    const date = new Date(value);
    if (!isoTimestamp.safeParse(value).success || Number.isNaN(date.getTime())) {
      throw rangeError(field, `\`${field}\` must be a date and time with an offset, such as 2026-01-31T00:00:00Z (got "${truncate(value, 40)}").`);
    }
    return date;
  });

/** A time zone the browser and the database both know (IANA names such as `Europe/Berlin`, or `UTC`). */
export const timeZoneSchema = z
  .string()
  .max(64)
  .regex(/^(UTC|[A-Za-z]+(?:\/[A-Za-z0-9_+-]+){1,2})$/, "An IANA time zone such as Europe/Berlin")
  .refine((tz) => {
    try {
      new Intl.DateTimeFormat("en", { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  }, "Unknown time zone");

/** `from` and `to` as ISO timestamps with an offset (both optional). */
export const rangeFields = { from: timestamp("from").optional(), to: timestamp("to").optional() };

/**
 * Fills in a missing end (now) or start (`defaultSpanMs` before the end) and
 * checks the range: `to` after `from`, at most 400 days, not before 2000, not
 * more than a day ahead. Use inside a zod `transform`; a bad range throws
 * `bad_request:range` (400) with a message that says what to change.
 */
export function resolveRange(q: { from?: Date; to?: Date }, defaultSpanMs: number): { from: Date; to: Date } {
  const to = q.to ?? new Date();
  const from = q.from ?? new Date(to.getTime() - defaultSpanMs);
  if (to.getTime() <= from.getTime()) throw rangeError("from", "`from` must be before `to`.");
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS) throw rangeError("from", `A range can span at most ${MAX_RANGE_DAYS} days.`);
  if (from.getUTCFullYear() < 2000) throw rangeError("from", "`from` is too far in the past: the earliest is 2000-01-01.");
  if (to.getTime() > Date.now() + DAY_MS) throw rangeError("to", "`to` is too far in the future: at most one day from now.");
  return { from, to };
}
