import { describe, expect, it } from "vitest";
import { chartPalette, OTHER_COLOR, seriesColors } from "../../components/usage/colors";
import { budgetPercent, budgetStatus, formatCacheHitRate, formatUsdTick } from "../../components/usage/format";

describe("chart colours", () => {
  it("draws an agent in its own colour, and never two groups in one colour", () => {
    const colors = seriesColors(
      [
        { key: "a", color: "#0EA5E9" },
        { key: "b", color: "#0ea5e9" },
        { key: "c", color: "#f59e0b" },
        { key: "gpt-x" },
      ],
      "__other",
    );
    expect(colors.get("a")).toBe("#0ea5e9");
    expect(colors.get("c")).toBe("#f59e0b");
    expect(colors.get("__other")).toBe(OTHER_COLOR);
    const all = ["a", "b", "c", "gpt-x", "__other"].map((k) => colors.get(k));
    expect(new Set(all).size).toBe(5);
    expect(chartPalette).toContain(colors.get("b"));
  });

  it("gives a group without a colour the same colour every time", () => {
    const once = seriesColors([{ key: "claude-opus" }, { key: "offline" }], "__other");
    const again = seriesColors([{ key: "claude-opus" }, { key: "offline" }], "__other");
    expect([...once]).toEqual([...again]);
  });
});

describe("budget wording", () => {
  it("says the exact share spent, rounded down", () => {
    expect(budgetPercent(97_400, 100_000)).toBe(97);
    expect(budgetStatus(97_400, 100_000)).toBe("97 % of the monthly budget");
    expect(budgetStatus(0, 100_000)).toBe("0 % of the monthly budget");
    expect(budgetStatus(99_999, 100_000)).toBe("99 % of the monthly budget");
    expect(budgetStatus(100_000, 100_000)).toBe("100 % of the monthly budget: runs stop");
    expect(budgetStatus(2_500_000, 100_000)).toBe("2,500 % of the monthly budget: runs stop");
    expect(budgetStatus(5, null)).toBe("No budget");
  });
});

describe("the spend chart's axis", () => {
  it("writes every step of a small scale apart, and dollars as the tables do", () => {
    const small = [0, 0.00005, 0.0001, 0.00015, 0.0002].map(formatUsdTick);
    expect(small).toEqual(["$0", "$0.00005", "$0.0001", "$0.00015", "$0.0002"]);
    expect(new Set([0, 0.0025, 0.005, 0.0075, 0.01, 0.0125].map(formatUsdTick)).size).toBe(6);
    expect(formatUsdTick(0.25)).toBe("$0.25");
    expect(formatUsdTick(1.25)).toBe("$1.25");
    expect(formatUsdTick(1234.5)).toBe("$1,234.50");
  });
});

describe("the cache-hit rate", () => {
  it("is the share of prompt tokens read from the cache, of every prompt token sent, and a dash without any", () => {
    expect(formatCacheHitRate({ inputTokens: 100, cacheReadTokens: 1_621, cacheWriteTokens: 75 })).toBe("90 %");
    expect(formatCacheHitRate({ inputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0 })).toBe("0 %");
    expect(formatCacheHitRate({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 })).toBe("—");
  });
});
