import { describe, expect, it } from "vitest";
import { absoluteWhen, addZonedDays, dayLabel, hourLabel, isoDay, mediumWhen, parseIsoDay, relativeWhen, startOfDay, startOfZonedDay } from "@/lib/client/format-time";
import { rangeParams, readRangeChoice, resolveRangeChoice } from "@/lib/client/usage-range";
import { toHourRange } from "@/lib/billing/range";

const now = new Date("2026-11-30T20:00:00Z");
const utc = { timeZone: "UTC" };
const at = (ms: number) => new Date(now.getTime() + ms);

describe("one date and time format", () => {
  it("says recent moments relative to now, in the past and the future", () => {
    expect(relativeWhen(at(-10_000), now, utc)).toBe("just now");
    expect(relativeWhen(at(-5 * 60_000), now, utc)).toBe("5 min ago");
    expect(relativeWhen(at(-50_000), now, utc)).toBe("1 min ago");
    expect(relativeWhen(at(-3 * 3_600_000), now, utc)).toBe("3 h ago");
    expect(relativeWhen(at(-26 * 3_600_000), now, utc)).toBe("1 day ago");
    expect(relativeWhen(at(-3 * 86_400_000), now, utc)).toBe("3 days ago");
    expect(relativeWhen(at(20 * 60_000), now, utc)).toBe("in 20 min");
    expect(relativeWhen(at(6 * 86_400_000), now, utc)).toBe("in 6 days");
  });

  it("says a moment that has happened but reads a few seconds ahead of the clock is just now, unless it is upcoming", () => {
    expect(relativeWhen(at(8_000), now, utc)).toBe("just now");
    expect(relativeWhen(at(8_000), now, { ...utc, upcoming: true })).toBe("in a moment");
    expect(relativeWhen(at(-8_000), now, { ...utc, upcoming: true })).toBe("just now");
    expect(relativeWhen(at(20 * 60_000), now, { ...utc, upcoming: true })).toBe("in 20 min");
  });

  it("writes a short date beyond a week, with the year only when it is another year", () => {
    expect(relativeWhen("2026-11-02T14:05:00Z", now, utc)).toBe("2 Nov, 14:05");
    expect(relativeWhen("2025-02-03T09:00:00Z", now, utc)).toBe("3 Feb 2025");
  });

  it("reads the moment in the time zone given", () => {
    expect(relativeWhen("2026-11-02T23:30:00Z", now, { timeZone: "Europe/Berlin" })).toBe("3 Nov, 00:30");
  });

  it("gives the full moment with its zone for a tooltip", () => {
    expect(absoluteWhen("2026-11-30T19:58:07Z", utc)).toBe("Mon, 30 Nov 2026, 19:58:07 UTC");
  });
});

describe("dates in the workspace's time zone", () => {
  it("writes the same moment as each zone's wall clock, in the tooltip and the chart labels", () => {
    const moment = "2026-11-30T19:58:07Z";
    expect(absoluteWhen(moment, { timeZone: "Asia/Tokyo" })).toBe("Tue, 1 Dec 2026, 04:58:07 GMT+9");
    expect(absoluteWhen(moment, { timeZone: "America/New_York" })).toBe("Mon, 30 Nov 2026, 14:58:07 GMT-5");
    expect(hourLabel(moment, { timeZone: "Asia/Kolkata" })).toBe("01:28");
    expect(dayLabel(moment, { timeZone: "Asia/Tokyo" })).toBe("1 Dec");
    expect(dayLabel(moment, { timeZone: "UTC", withHour: true })).toBe("30 Nov, 19:58");
    expect(mediumWhen(moment, { timeZone: "Europe/Berlin" })).toBe("30 Nov 2026, 20:58 CET");
  });

  it("decides 'another year' in the zone, not in UTC", () => {
    // 31 Dec 2025 23:30 UTC is already 2026 in Berlin: same year as now there, so no year is written.
    expect(relativeWhen("2025-12-31T23:30:00Z", now, { timeZone: "Europe/Berlin" })).toBe("1 Jan, 00:30");
    expect(relativeWhen("2025-12-31T23:30:00Z", now, utc)).toBe("31 Dec 2025");
  });

  it("finds the start of a day in the zone, also on the days the clocks change", () => {
    expect(startOfZonedDay(new Date("2026-11-30T19:58:07Z"), "Asia/Tokyo").toISOString()).toBe("2026-11-30T15:00:00.000Z");
    expect(startOfZonedDay(new Date("2026-11-30T03:00:00Z"), "America/New_York").toISOString()).toBe("2026-11-29T05:00:00.000Z");
    expect(startOfDay({ year: 2026, month: 3, day: 29 }, "Europe/Berlin").toISOString()).toBe("2026-03-28T23:00:00.000Z");
    // 29 March 2026 is 23 hours long in Berlin, 25 October 25 hours: the next day starts at the next midnight all the same.
    expect(addZonedDays(new Date("2026-03-29T10:00:00Z"), 1, "Europe/Berlin").toISOString()).toBe("2026-03-29T22:00:00.000Z");
    expect(addZonedDays(new Date("2026-10-25T10:00:00Z"), 1, "Europe/Berlin").toISOString()).toBe("2026-10-25T23:00:00.000Z");
    expect(startOfZonedDay(new Date("2026-11-30T19:58:07Z"), "Asia/Kolkata").toISOString()).toBe("2026-11-30T18:30:00.000Z");
  });

  it("writes and reads days as a date input holds them", () => {
    expect(isoDay(new Date("2026-11-30T19:58:07Z"), "Asia/Tokyo")).toBe("2026-12-01");
    expect(isoDay(new Date("2026-11-30T19:58:07Z"), "UTC")).toBe("2026-11-30");
    expect(parseIsoDay("2026-02-28")).toEqual({ year: 2026, month: 2, day: 28 });
    expect(parseIsoDay("2026-02-30")).toBeNull();
    expect(parseIsoDay("30/11/2026")).toBeNull();
    expect(parseIsoDay("")).toBeNull();
  });
});

describe("the usage range in the address", () => {
  const nowish = new Date("2026-11-30T19:58:07Z");
  const read = (query: string) => readRangeChoice(new URLSearchParams(query));

  it("reads presets and custom days, and falls back to 7 days", () => {
    expect(read("")).toEqual({ preset: "7d" });
    expect(read("range=30d")).toEqual({ preset: "30d" });
    expect(read("range=bogus")).toEqual({ preset: "7d" });
    expect(read("from=2026-11-01&to=2026-11-20")).toEqual({ preset: "custom", from: "2026-11-01", to: "2026-11-20" });
    expect(rangeParams({ preset: "custom", from: "2026-11-01", to: "2026-11-20" })).toEqual({ from: "2026-11-01", to: "2026-11-20" });
    expect(rangeParams({ preset: "today" })).toEqual({ range: "today" });
  });

  it("turns custom days into whole days of the zone, the end day included", () => {
    const range = resolveRangeChoice({ preset: "custom", from: "2026-11-01", to: "2026-11-20" }, nowish, "Asia/Tokyo");
    expect(range).toEqual({ ok: true, from: new Date("2026-10-31T15:00:00Z"), to: new Date("2026-11-20T15:00:00Z") });
    const today = resolveRangeChoice({ preset: "today" }, nowish, "Asia/Tokyo");
    expect(today).toEqual({ ok: true, from: new Date("2026-11-30T15:00:00Z"), to: nowish });
    const month = resolveRangeChoice({ preset: "month" }, nowish, "Asia/Tokyo");
    expect(month).toEqual({ ok: true, from: new Date("2026-11-30T15:00:00Z"), to: nowish });
  });

  it("7 and 30 days are whole hours ending with the hour now is in, the periods of the overview's cards", () => {
    const now = new Date("2026-12-05T02:14:30Z");
    expect(resolveRangeChoice({ preset: "7d" }, now, "Asia/Tokyo")).toEqual({ ok: true, from: new Date("2026-11-28T03:00:00Z"), to: now });
    expect(resolveRangeChoice({ preset: "30d" }, now, "UTC")).toEqual({ ok: true, from: new Date("2026-11-05T03:00:00Z"), to: now });
    // The server widens a range to whole hours: this one is already whole at its start, and ends with this hour.
    const range = resolveRangeChoice({ preset: "7d" }, now, "UTC");
    if (!range.ok) throw new Error("expected a range");
    expect(toHourRange(range.from, range.to)).toEqual({ from: new Date("2026-11-28T03:00:00Z"), to: new Date("2026-12-05T03:00:00Z") });
  });

  it("says what is wrong with a bad range instead of choosing another", () => {
    const problem = (from: string, to: string) => {
      const r = resolveRangeChoice({ preset: "custom", from, to }, nowish, "UTC");
      return r.ok ? null : r;
    };
    expect(problem("2026-11-20", "2026-11-01")).toMatchObject({ field: "from", problem: expect.stringContaining("after the end day") });
    expect(problem("2026-13-01", "2026-11-20")).toMatchObject({ field: "from", problem: expect.stringContaining("is not a day") });
    expect(problem("2026-11-01", "soon")).toMatchObject({ field: "to", problem: expect.stringContaining("is not a day") });
    expect(problem("2024-01-01", "2026-11-20")).toMatchObject({ problem: expect.stringContaining("at most 400") });
    expect(problem("2026-11-01", "2026-12-05")).toMatchObject({ field: "to", problem: expect.stringContaining("after today") });
    expect(problem("1999-12-01", "2000-01-05")).toMatchObject({ problem: expect.stringContaining("2000") });
    expect(problem("2026-11-30", "2026-11-30")).toBeNull();
  });
});
