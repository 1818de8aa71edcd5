import { describe, expect, it } from "vitest";
import { budgetState, monthOf } from "../../lib/billing/budgets";
import { updatePricesSchema } from "../../lib/billing/price-book";
import { creditsAtRates, creditsFor, formatUsd, priceFor, ratesOf, resolvePrice } from "../../lib/billing/prices";
import { toHourRange } from "../../lib/billing/range";
import { reportToCsv, type UsageReport } from "../../lib/billing/report";

const u = (inputTokens: number, outputTokens: number, cacheReadTokens = 0, cacheWriteTokens = 0) => ({ inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens });

describe("prices", () => {
  it("claude-sonnet at $3/$15 per Mtok: 1000 in + 500 out = 3,000 + 7,500 = 10,500 credits; cache read $0.30 and write $3.75: 1000 each = 300 + 3,750", () => {
    const { price, priced } = priceFor("claude-sonnet-4-6");
    expect(priced).toBe(true);
    expect(creditsFor(u(1000, 500), price)).toBe(10_500);
    expect(creditsFor(u(0, 0, 1000, 1000), price)).toBe(4_050);
  });

  it("rounds a fraction of a credit up, never down: 1 token at $0.25 per Mtok = 0.25 credit → 1", () => {
    expect(creditsAtRates(u(1, 0), ratesOf({ input: 0.25, output: 0, cacheRead: 0, cacheWrite: 0 }))).toBe(1);
    expect(creditsAtRates(u(4, 0), ratesOf({ input: 0.25, output: 0, cacheRead: 0, cacheWrite: 0 }))).toBe(1);
    expect(creditsAtRates(u(5, 0), ratesOf({ input: 0.25, output: 0, cacheRead: 0, cacheWrite: 0 }))).toBe(2);
  });

  it("stays exact past 2^53 micro-credits: 10^9 output tokens at $75 per Mtok = 75,000,000,000 credits ($75,000)", () => {
    expect(creditsAtRates(u(0, 1_000_000_000), ratesOf({ input: 0, output: 75, cacheRead: 0, cacheWrite: 0 }))).toBe(75_000_000_000);
  });

  it("a workspace price beats the built-in list (longest prefix first); an unknown model falls to the workspace default, flagged", () => {
    const workspace = [
      { model: "claude", rates: ratesOf({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }) },
      { model: "claude-sonnet-4", rates: ratesOf({ input: 2, output: 10, cacheRead: 0, cacheWrite: 0 }) },
      { model: "*", rates: ratesOf({ input: 0.5, output: 0.5, cacheRead: 0, cacheWrite: 0 }) },
    ];
    expect(resolvePrice("claude-sonnet-4-6", workspace)).toMatchObject({ source: "workspace", match: "claude-sonnet-4", priced: true, rates: { input: 2_000_000 } });
    expect(resolvePrice("claude-opus-4-1", workspace)).toMatchObject({ source: "workspace", match: "claude" });
    expect(resolvePrice("offline", workspace)).toMatchObject({ source: "built-in", match: "offline", rates: { input: 250_000, output: 1_250_000 } });
    expect(resolvePrice("glm:glm-4.6", workspace)).toMatchObject({ source: "default", priced: false, rates: { input: 500_000 } });
    // A provider prefix is matched on the bare model too.
    expect(resolvePrice("proxy:claude-haiku-4-5")).toMatchObject({ source: "built-in", match: "claude-haiku-4" });
    expect(resolvePrice("glm:glm-4.6")).toMatchObject({ source: "default", priced: false, rates: { input: 3_000_000, output: 15_000_000 } });
  });

  it("accepts dollar prices with up to six decimals only (whole credits per Mtok)", () => {
    const one = (input: number) => updatePricesSchema.safeParse({ prices: [{ model: "m", input, output: 0, cacheRead: 0, cacheWrite: 0 }], defaultPrice: null }).success;
    expect(one(0.000001)).toBe(true);
    expect(one(3.123456)).toBe(true);
    expect(one(0.0000005)).toBe(false);
    expect(one(-1)).toBe(false);
    const twice = updatePricesSchema.safeParse({
      prices: [
        { model: "m", input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        { model: "m", input: 2, output: 2, cacheRead: 0, cacheWrite: 0 },
      ],
      defaultPrice: null,
    });
    expect(twice.success).toBe(false);
    expect(updatePricesSchema.safeParse({ prices: [{ model: "*", input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }], defaultPrice: null }).success).toBe(false);
  });

  it("formats dollars with four decimals below $1 and two above", () => {
    expect(formatUsd(0)).toBe("$0");
    expect(formatUsd(250)).toBe("$0.0003");
    expect(formatUsd(10_500)).toBe("$0.0105");
    expect(formatUsd(1_234_567_890)).toBe("$1,234.57");
  });
});

describe("budgets", () => {
  it("warns at 80 % and stops at 100 %: of 10,000 credits, 7,999 ok, 8,000 warning, 10,000 exceeded; 0 stops everything", () => {
    expect(budgetState(7_999, 10_000)).toBe("ok");
    expect(budgetState(8_000, 10_000)).toBe("warning");
    expect(budgetState(9_999, 10_000)).toBe("warning");
    expect(budgetState(10_000, 10_000)).toBe("exceeded");
    expect(budgetState(0, 0)).toBe("exceeded");
    expect(budgetState(1_000_000, null)).toBe("none");
  });

  it("months are UTC calendar months", () => {
    const m = monthOf(new Date("2026-12-31T23:30:00-05:00"));
    expect(m.start.toISOString()).toBe("2027-01-01T00:00:00.000Z");
    expect(m.end.toISOString()).toBe("2027-02-01T00:00:00.000Z");
    expect(m.label).toBe("January 2027");
  });
});

describe("ranges and CSV", () => {
  it("widens a range to the whole hours the rollups hold", () => {
    const r = toHourRange(new Date("2026-03-01T10:20:00Z"), new Date("2026-03-01T12:00:00Z"));
    expect([r.from.toISOString(), r.to.toISOString()]).toEqual(["2026-03-01T10:00:00.000Z", "2026-03-01T12:00:00.000Z"]);
    const tiny = toHourRange(new Date("2026-03-01T10:20:00Z"), new Date("2026-03-01T10:20:00Z"));
    expect(tiny.to.toISOString()).toBe("2026-03-01T11:00:00.000Z");
  });

  it("CSV: a label a spreadsheet would run as a formula is neutralised; quotes and commas are quoted", () => {
    const zero = { calls: 1, inputTokens: 2, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, unpricedCalls: 0, credits: 1_500_000, computeMs: 2_500, computeCalls: 1 };
    const report: UsageReport = {
      range: { from: "2026-03-01T00:00:00.000Z", to: "2026-03-02T00:00:00.000Z" },
      group: "agent",
      granularity: "hour",
      rows: [
        { ...zero, key: "a", label: '=HYPERLINK("x")', nominal: false },
        { ...zero, key: "b", label: "Ann, the agent", nominal: false },
      ],
      totals: { ...zero, calls: 2, credits: 3_000_000, computeMs: 5_000, computeCalls: 2 },
      series: [],
    };
    const lines = reportToCsv(report).trim().split("\r\n");
    expect(lines[1]).toBe(`agent,a,"'=HYPERLINK(""x"")",1,2,3,0,0,0,1500000,1.500000,2.500`);
    expect(lines[2]).toBe(`agent,b,"Ann, the agent",1,2,3,0,0,0,1500000,1.500000,2.500`);
    expect(lines[3]).toBe("total,,Total 2026-03-01T00:00:00.000Z to 2026-03-02T00:00:00.000Z,2,2,3,0,0,0,3000000,3.000000,5.000");
  });
});
