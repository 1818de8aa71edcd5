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

export function relativeWhen(at: Date | string, now: Date | number = Date.now(), options: WhenOptions = {}): string {
  const date = typeof at === "string" ? new Date(at) : at;
  const diff = date.getTime() - (typeof now === "number" ? now : now.getTime());
  const past = diff <= 0;
  const span = Math.abs(diff);
  const say = (n: number, unit: string) => (past ? `${n} ${unit} ago` : `in ${n} ${unit}`);
  if (span < 45_000) return past ? "just now" : "in a moment";
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
