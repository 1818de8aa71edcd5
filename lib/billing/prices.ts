import type { Usage } from "../models/types";

/**
 * Credits are integers: 1 credit = US$0.000001. A price of $3 per million
 * tokens is therefore 3 credits per token, and every sum stays exact.
 */
export const CREDITS_PER_USD = 1_000_000;

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

const claude = (input: number, output: number): ModelPrice => ({ input, output, cacheRead: input / 10, cacheWrite: input * 1.25 });

/**
 * Built-in list prices, matched by model id prefix. The offline model has a
 * nominal price so that demos show spend moving; it is labelled as nominal in the UI.
 */
export const defaultPrices: { prefix: string; price: ModelPrice }[] = [
  { prefix: "claude-opus-4", price: claude(5, 25) },
  { prefix: "claude-sonnet-4", price: claude(3, 15) },
  { prefix: "claude-haiku-4", price: claude(1, 5) },
  { prefix: "offline", price: { input: 0.25, output: 1.25, cacheRead: 0, cacheWrite: 0 } },
];

/** Charged for a model with no price, and flagged. */
export const fallbackPrice: ModelPrice = claude(3, 15);

export function priceFor(model: string): { price: ModelPrice; priced: boolean } {
  const bare = model.includes(":") ? model.slice(model.indexOf(":") + 1) : model;
  const hit = defaultPrices.find((p) => bare.startsWith(p.prefix) || model.startsWith(p.prefix));
  return hit ? { price: hit.price, priced: true } : { price: fallbackPrice, priced: false };
}

/** Micro-credits per token for a dollars-per-million price (exact for prices with up to 6 decimals). */
const perToken = (usdPerMillion: number) => BigInt(Math.round(usdPerMillion * CREDITS_PER_USD));

/** Credits for a call, rounded up to a whole credit (never undercharges by a fraction). */
export function creditsFor(usage: Usage, price: ModelPrice): number {
  const microCredits =
    BigInt(usage.inputTokens) * perToken(price.input) +
    BigInt(usage.outputTokens) * perToken(price.output) +
    BigInt(usage.cacheReadTokens) * perToken(price.cacheRead) +
    BigInt(usage.cacheWriteTokens) * perToken(price.cacheWrite);
  const whole = microCredits / BigInt(CREDITS_PER_USD);
  return Number(microCredits % BigInt(CREDITS_PER_USD) === 0n ? whole : whole + 1n);
}

export function formatCredits(credits: number): string {
  const usd = credits / CREDITS_PER_USD;
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}
