import { describe, expect, it } from "vitest";
import { absoluteWhen, relativeWhen } from "@/lib/client/when";

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
