import { CREDITS_PER_USD, formatUsd } from "@/lib/billing/prices";

export { formatUsd };

export const formatCount = (n: number) => n.toLocaleString("en-US");

/**
 * A chart axis's dollar tick: under a dollar with up to three significant digits, so that the steps of a small
 * scale ($0.00005, $0.0001, $0.00015) read apart; from a dollar up as `formatUsd` writes it.
 */
export function formatUsdTick(usd: number): string {
  if (usd === 0) return "$0";
  if (Math.abs(usd) >= 1) return formatUsd(Math.round(usd * CREDITS_PER_USD));
  return `${usd < 0 ? "-" : ""}$${Math.abs(usd).toLocaleString("en-US", { maximumSignificantDigits: 3 })}`;
}

/** A rate with sensible precision: 0.03, 4.5, 1,234. */
export function formatRate(n: number): string {
  if (n === 0) return "0";
  if (n < 1) return n.toLocaleString("en-US", { maximumFractionDigits: 3 });
  if (n < 10) return n.toLocaleString("en-US", { maximumFractionDigits: 1 });
  return Math.round(n).toLocaleString("en-US");
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** +12 %, −40 %, or "new" when there was nothing before. */
export function formatChange(change: number | null, now: number): { text: string; tone: "up" | "down" | "flat" } {
  if (change === null) return now > 0 ? { text: "new", tone: "up" } : { text: "—", tone: "flat" };
  const pct = Math.round(change * 100);
  if (pct === 0) return { text: "±0 %", tone: "flat" };
  return pct > 0 ? { text: `+${pct.toLocaleString("en-US")} %`, tone: "up" } : { text: `−${Math.abs(pct).toLocaleString("en-US")} %`, tone: "down" };
}

export const creditsToUsdInput = (credits: number | null) => (credits === null ? "" : String(credits / CREDITS_PER_USD));
/** A dollar amount typed by a person → whole credits, or null for an empty field; NaN when it is not a number. */
export function usdInputToCredits(value: string): number | null {
  if (value.trim() === "") return null;
  const usd = Number(value);
  return Number.isFinite(usd) && usd >= 0 ? Math.round(usd * CREDITS_PER_USD) : NaN;
}

/** How much of a budget is spent, in whole percent rounded down (so 100 % means the cap is reached); null without a budget. */
export function budgetPercent(spentCredits: number, budgetCredits: number | null): number | null {
  if (budgetCredits === null) return null;
  if (budgetCredits <= 0) return 100;
  return Math.floor((spentCredits * 100) / budgetCredits);
}

/** A budget's state in one exact phrase: "97 % of the monthly budget", "No budget". */
export function budgetStatus(spentCredits: number, budgetCredits: number | null): string {
  const pct = budgetPercent(spentCredits, budgetCredits);
  if (pct === null) return "No budget";
  const text = `${pct.toLocaleString("en-US")} % of the monthly budget`;
  return pct >= 100 ? `${text}: runs stop` : text;
}

/**
 * The share of prompt tokens read from the provider's cache, of all the prompt tokens sent (uncached, read and
 * written): "62 %", or "—" when no prompt tokens were sent.
 */
export function formatCacheHitRate(t: { inputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }): string {
  const prompt = t.inputTokens + t.cacheReadTokens + t.cacheWriteTokens;
  if (prompt === 0) return "—";
  return `${Math.round((t.cacheReadTokens / prompt) * 100).toLocaleString("en-US")} %`;
}
