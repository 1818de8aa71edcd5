import { describe, expect, it } from "vitest";
import { planRollups } from "../../lib/billing/rollup-plan";

const at = (iso: string) => new Date(iso);
const spans = (ranges: { from: Date; to: Date }[]) => ranges.map((r) => `${r.from.toISOString().slice(0, 13)}..${r.to.toISOString().slice(0, 13)}`);

describe("planRollups", () => {
  it("reads whole UTC days from the daily rollups and the hours around them from the hourly ones", () => {
    const plan = planRollups({ from: at("2026-03-01T05:00:00Z"), to: at("2026-03-04T07:00:00Z") });
    expect(spans(plan.daily)).toEqual(["2026-03-02T00..2026-03-04T00"]);
    expect(spans(plan.hourly)).toEqual(["2026-03-01T05..2026-03-02T00", "2026-03-04T00..2026-03-04T07"]);
  });

  it("a day that a cut falls inside is read hour by hour; a cut on midnight splits nothing", () => {
    const plan = planRollups({ from: at("2026-03-01T00:00:00Z"), to: at("2026-03-05T00:00:00Z") }, [at("2026-03-02T13:00:00Z"), at("2026-03-04T00:00:00Z")]);
    expect(spans(plan.daily)).toEqual(["2026-03-01T00..2026-03-02T00", "2026-03-03T00..2026-03-05T00"]);
    expect(spans(plan.hourly)).toEqual(["2026-03-02T00..2026-03-03T00"]);
  });

  it("a range within one day, or of no whole day, is hourly only", () => {
    expect(planRollups({ from: at("2026-03-01T01:00:00Z"), to: at("2026-03-01T23:00:00Z") })).toEqual({
      daily: [],
      hourly: [{ from: at("2026-03-01T01:00:00Z"), to: at("2026-03-01T23:00:00Z") }],
    });
    expect(planRollups({ from: at("2026-03-01T12:00:00Z"), to: at("2026-03-02T12:00:00Z") }).daily).toEqual([]);
  });

  it("every hour of the range is in exactly one piece", () => {
    const from = at("2026-01-10T03:00:00Z");
    const to = at("2026-03-11T17:00:00Z");
    const cuts = [at("2026-02-09T17:00:00Z"), at("2026-03-04T17:00:00Z"), at("2026-02-25T17:00:00Z"), at("2026-03-10T23:00:00Z")];
    const plan = planRollups({ from, to }, cuts);
    const covered: number[] = [];
    for (const r of [...plan.daily, ...plan.hourly]) for (let h = r.from.getTime(); h < r.to.getTime(); h += 3_600_000) covered.push(h);
    covered.sort((a, b) => a - b);
    expect(covered.length).toBe((to.getTime() - from.getTime()) / 3_600_000);
    expect(new Set(covered).size).toBe(covered.length);
    expect(covered[0]).toBe(from.getTime());
    // No daily piece contains a cut strictly inside it.
    for (const d of plan.daily) for (const c of cuts) expect(c.getTime() > d.from.getTime() && c.getTime() < d.to.getTime()).toBe(false);
    expect(plan.daily.length).toBeGreaterThan(0);
  });
});
