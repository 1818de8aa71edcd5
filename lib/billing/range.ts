import { z } from "zod";

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

const timestamp = z.iso.datetime({ offset: true }).transform((v) => new Date(v));

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
export const rangeFields = { from: timestamp.optional(), to: timestamp.optional() };

/**
 * Fills in a missing end (now) or start (`defaultSpanMs` before the end) and
 * checks the range: `to` after `from`, at most 400 days, not before 2000, not
 * more than a day ahead. Use inside a zod `transform`.
 */
export function resolveRange(q: { from?: Date; to?: Date }, defaultSpanMs: number, ctx: z.RefinementCtx): { from: Date; to: Date } {
  const to = q.to ?? new Date();
  const from = q.from ?? new Date(to.getTime() - defaultSpanMs);
  const problem =
    to.getTime() <= from.getTime()
      ? "`to` must be after `from`"
      : to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS
        ? `A range can span at most ${MAX_RANGE_DAYS} days`
        : from.getUTCFullYear() < 2000
          ? "`from` is too far in the past"
          : to.getTime() > Date.now() + DAY_MS
            ? "`to` is too far in the future"
            : null;
  if (problem) ctx.addIssue({ code: "custom", message: problem, path: ["from"] });
  return { from, to };
}
