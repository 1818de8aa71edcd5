/**
 * The usage page's range as it lives in the address: `?range=7d` for a
 * preset, or `?from=2026-11-01&to=2026-11-20` for whole days (both
 * inclusive) in the workspace's time zone. A reload or a shared link shows
 * the same range; a bad one is explained, never replaced by another.
 */
import { addZonedDays, isoDay, parseIsoDay, startOfDay, startOfZonedDay, zonedDay } from "./format-time";

export const rangePresets = ["today", "7d", "30d", "month"] as const;
export type RangePreset = (typeof rangePresets)[number];
export type RangeChoice = { preset: RangePreset } | { preset: "custom"; from: string; to: string };

export const DEFAULT_PRESET: RangePreset = "7d";
/** The longest range the server accepts (see `lib/billing/range.ts`). */
export const MAX_CUSTOM_DAYS = 400;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The range an address asks for; no range at all means the last 7 days. */
export function readRangeChoice(params: URLSearchParams): RangeChoice {
  const from = params.get("from");
  const to = params.get("to");
  if (from !== null || to !== null || params.get("range") === "custom") return { preset: "custom", from: from ?? "", to: to ?? "" };
  const range = params.get("range");
  if (range && (rangePresets as readonly string[]).includes(range)) return { preset: range as RangePreset };
  return { preset: DEFAULT_PRESET };
}

/** The address parameters that say a range (the other parameters of the address are kept by the caller). */
export function rangeParams(choice: RangeChoice): Record<string, string> {
  return choice.preset === "custom" ? { from: choice.from, to: choice.to } : { range: choice.preset };
}

export type ResolvedRange = { ok: true; from: Date; to: Date } | { ok: false; problem: string; field: "from" | "to" };

/** The moments a choice means now in the zone, or what is wrong with it, said for a person. */
export function resolveRangeChoice(choice: RangeChoice, now: Date, timeZone?: string): ResolvedRange {
  if (choice.preset === "today") return { ok: true, from: startOfZonedDay(now, timeZone), to: now };
  if (choice.preset === "7d" || choice.preset === "30d") {
    // The hours the server counts in, this one included: the same 7 or 30 days as the overview's cards, whose periods
    // end with the hour now is in.
    const hourEnd = Math.ceil(now.getTime() / HOUR_MS) * HOUR_MS;
    return { ok: true, from: new Date(hourEnd - (choice.preset === "7d" ? 7 : 30) * DAY_MS), to: now };
  }
  if (choice.preset === "month") {
    const today = zonedDay(now, timeZone);
    return { ok: true, from: startOfDay({ ...today, day: 1 }, timeZone), to: now };
  }
  return resolveCustom(choice as Extract<RangeChoice, { preset: "custom" }>, now, timeZone);
}

function resolveCustom(choice: { from: string; to: string }, now: Date, timeZone?: string): ResolvedRange {
  const from = parseIsoDay(choice.from);
  if (!from) return { ok: false, field: "from", problem: choice.from ? `"${choice.from.slice(0, 20)}" is not a day: choose a start day.` : "Choose a start day." };
  const to = parseIsoDay(choice.to);
  if (!to) return { ok: false, field: "to", problem: choice.to ? `"${choice.to.slice(0, 20)}" is not a day: choose an end day.` : "Choose an end day." };
  if (choice.from > choice.to) return { ok: false, field: "from", problem: "The start day is after the end day: choose a start on or before the end." };
  if (from.year < 2000) return { ok: false, field: "from", problem: "The earliest start day is 1 January 2000." };
  if (choice.to > isoDay(now, timeZone)) return { ok: false, field: "to", problem: "The end day is after today: usage of days to come is not known yet." };
  const start = startOfDay(from, timeZone);
  const end = addZonedDays(startOfDay(to, timeZone), 1, timeZone);
  const days = Math.round((end.getTime() - start.getTime()) / DAY_MS);
  if (days > MAX_CUSTOM_DAYS) return { ok: false, field: "from", problem: `The range spans ${days} days; it can span at most ${MAX_CUSTOM_DAYS}.` };
  return { ok: true, from: start, to: end };
}
