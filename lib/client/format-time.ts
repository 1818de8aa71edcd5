/**
 * The one way a date and time is written in the interface: relative when it
 * is recent or near ("5 min ago", "in 3 h"), a short date when further
 * ("28 Nov, 14:05"; "3 Feb 2025" in another year), and the full moment with
 * its time zone for a tooltip.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface WhenOptions {
  /** An IANA time zone; the browser's own when absent. */
  timeZone?: string;
}

export interface RelativeOptions extends WhenOptions {
  /**
   * The moment may be ahead (an expiry). Otherwise it has happened, and a
   * moment a few seconds ahead of `now` (a clock that ticks every half
   * minute, a server clock a little ahead of the browser's) is "just now".
   */
  upcoming?: boolean;
}

export function relativeWhen(at: Date | string, now: Date | number = Date.now(), options: RelativeOptions = {}): string {
  const date = typeof at === "string" ? new Date(at) : at;
  const diff = date.getTime() - (typeof now === "number" ? now : now.getTime());
  const past = diff <= 0;
  const span = Math.abs(diff);
  const say = (n: number, unit: string) => (past ? `${n} ${unit} ago` : `in ${n} ${unit}`);
  if (span < 45_000) return past || !options.upcoming ? "just now" : "in a moment";
  if (span < HOUR) return say(Math.max(1, Math.round(span / MINUTE)), "min");
  if (span < DAY) return say(Math.round(span / HOUR), "h");
  if (span < 7 * DAY) return say(Math.round(span / DAY), Math.round(span / DAY) === 1 ? "day" : "days");
  return shortDate(date, now, options);
}

function shortDate(date: Date, now: Date | number, options: WhenOptions): string {
  const year = (d: Date) => new Intl.DateTimeFormat("en-GB", { year: "numeric", timeZone: options.timeZone }).format(d);
  const sameYear = year(date) === year(typeof now === "number" ? new Date(now) : now);
  return new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    ...(sameYear ? { hour: "2-digit", minute: "2-digit", hourCycle: "h23" } : { year: "numeric" }),
    timeZone: options.timeZone,
  }).format(date);
}

export function absoluteWhen(at: Date | string, options: WhenOptions = {}): string {
  const date = typeof at === "string" ? new Date(at) : at;
  return new Intl.DateTimeFormat("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short",
    timeZone: options.timeZone,
  }).format(date);
}

/** An hour of the day in the zone, for chart axes ("14:00"). */
export function hourLabel(at: Date | string, options: WhenOptions = {}): string {
  const date = typeof at === "string" ? new Date(at) : at;
  return new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: options.timeZone }).format(date);
}

/** A day in the zone, for chart axes ("28 Nov"), with its hour when `withHour` ("28 Nov, 14:00"). */
export function dayLabel(at: Date | string, options: WhenOptions & { withHour?: boolean } = {}): string {
  const date = typeof at === "string" ? new Date(at) : at;
  return new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    ...(options.withHour ? { hour: "2-digit", minute: "2-digit", hourCycle: "h23" } : {}),
    timeZone: options.timeZone,
  }).format(date);
}

/** A moment in the zone, in full but without seconds ("Sat 28 Nov 2026, 14:05 CET"): for sentences that name a range. */
export function mediumWhen(at: Date | string, options: WhenOptions = {}): string {
  const date = typeof at === "string" ? new Date(at) : at;
  return new Intl.DateTimeFormat("en-GB", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZoneName: "short",
    timeZone: options.timeZone,
  }).format(date);
}

interface Wall {
  year: number;
  month: number;
  day: number;
}

/** The calendar day a moment falls on in the zone. */
export function zonedDay(at: Date, timeZone?: string): Wall {
  const parts = new Intl.DateTimeFormat("en-US", { year: "numeric", month: "numeric", day: "numeric", timeZone }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  return { year: get("year"), month: get("month"), day: get("day") };
}

/** How far the zone's wall clock is ahead of UTC at a moment, in milliseconds. */
function offsetAt(at: Date, timeZone?: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
    hourCycle: "h23",
    timeZone,
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

/** The moment a calendar day starts in the zone (its first instant, also on days a clock change shortens or lengthens). */
export function startOfDay(day: Wall, timeZone?: string): Date {
  const wallMidnight = Date.UTC(day.year, day.month - 1, day.day);
  let guess = wallMidnight - offsetAt(new Date(wallMidnight), timeZone);
  const corrected = wallMidnight - offsetAt(new Date(guess), timeZone);
  if (corrected !== guess) guess = corrected;
  return new Date(guess);
}

/** The start of the day `at` falls on in the zone. */
export const startOfZonedDay = (at: Date, timeZone?: string) => startOfDay(zonedDay(at, timeZone), timeZone);

/** The start of the day `days` after the day `at` falls on, in the zone. */
export function addZonedDays(at: Date, days: number, timeZone?: string): Date {
  const d = zonedDay(at, timeZone);
  const next = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return startOfDay({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() }, timeZone);
}

/** A day as `YYYY-MM-DD` (the value of a date input), in the zone. */
export function isoDay(at: Date, timeZone?: string): string {
  const d = zonedDay(at, timeZone);
  return `${d.year}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;
}

/** Reads `YYYY-MM-DD` as a real calendar day, or null (`2026-02-30` is not one). */
export function parseIsoDay(value: string): Wall | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return { year, month, day };
}
