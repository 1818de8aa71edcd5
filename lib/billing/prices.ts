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

/**
 * The same price in credits per million tokens (= micro-credits per token):
 * whole numbers for any dollar price with up to six decimals.
 */
export interface PriceRates {
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

/** Charged for a model with no price, and flagged (unless a workspace sets its own default). */
export const fallbackPrice: ModelPrice = claude(3, 15);

/** The key of a workspace's default price: charged for models without one, and flagged. */
export const DEFAULT_PRICE_KEY = "*";

export const NOMINAL_MODEL = "offline";

/** Whether a model spec is the offline model, whose price is nominal (nothing is really spent). */
export const isNominal = (model: string) => model === NOMINAL_MODEL || model.startsWith(`${NOMINAL_MODEL}:`);

/** Where a charge's price came from. `default` means the model had no price: the charge is flagged. */
export type PriceSource = "workspace" | "built-in" | "default";

export interface ResolvedPrice {
  rates: PriceRates;
  priced: boolean;
  source: PriceSource;
  /** The prefix that matched, or `*` for the default. */
  match: string;
}

const bareModel = (model: string) => (model.includes(":") ? model.slice(model.indexOf(":") + 1) : model);
const matches = (model: string, prefix: string) => model.startsWith(prefix) || bareModel(model).startsWith(prefix);

/** Dollars per Mtok → credits per Mtok (rounded to the nearest credit; exact up to six decimals). */
export const creditsPerMtok = (usdPerMillion: number) => Math.round(usdPerMillion * CREDITS_PER_USD);
export const usdPerMtok = (creditsPerMillion: number) => creditsPerMillion / CREDITS_PER_USD;

export function ratesOf(price: ModelPrice): PriceRates {
  return {
    input: creditsPerMtok(price.input),
    output: creditsPerMtok(price.output),
    cacheRead: creditsPerMtok(price.cacheRead),
    cacheWrite: creditsPerMtok(price.cacheWrite),
  };
}

export function priceOf(rates: PriceRates): ModelPrice {
  return { input: usdPerMtok(rates.input), output: usdPerMtok(rates.output), cacheRead: usdPerMtok(rates.cacheRead), cacheWrite: usdPerMtok(rates.cacheWrite) };
}

/**
 * The price of a model for a workspace: the workspace's longest matching
 * model or prefix, else the built-in list, else the workspace's default (`*`),
 * else the built-in fallback. Only the last two leave the charge flagged.
 */
export function resolvePrice(model: string, workspacePrices: { model: string; rates: PriceRates }[] = []): ResolvedPrice {
  let best: { model: string; rates: PriceRates } | undefined;
  for (const row of workspacePrices) {
    if (row.model === DEFAULT_PRICE_KEY || !matches(model, row.model)) continue;
    if (!best || row.model.length > best.model.length) best = row;
  }
  if (best) return { rates: best.rates, priced: true, source: "workspace", match: best.model };
  const builtIn = defaultPrices.find((p) => matches(model, p.prefix));
  if (builtIn) return { rates: ratesOf(builtIn.price), priced: true, source: "built-in", match: builtIn.prefix };
  const fallback = workspacePrices.find((row) => row.model === DEFAULT_PRICE_KEY);
  return { rates: fallback?.rates ?? ratesOf(fallbackPrice), priced: false, source: "default", match: DEFAULT_PRICE_KEY };
}

/** The built-in price of a model (no workspace prices). */
export function priceFor(model: string): { price: ModelPrice; priced: boolean } {
  const resolved = resolvePrice(model);
  return { price: priceOf(resolved.rates), priced: resolved.priced };
}

/** What a compute charge is for: the sandbox of a command, or the agent's browser. */
export const computeKinds = ["sandbox", "browser"] as const;
export type ComputeKind = (typeof computeKinds)[number];

/**
 * The price book's key of a workspace's compute price (no model id starts with "~"). Its row holds credits per
 * second in the input rate; the other rates are zero.
 */
export const COMPUTE_PRICE_KEY = "~compute";

/**
 * The built-in price of a second of an agent's computer, in US dollars: nominal, since the sandbox and the browser
 * run on this server and no provider bills them; a workspace sets its own to count what its machines cost.
 */
export const defaultComputeUsdPerSecond = 0.000014;

/** Credits for `ms` milliseconds at `creditsPerSecond`, rounded up to a whole credit. */
export function computeCredits(ms: number, creditsPerSecond: number): number {
  return Math.ceil((ms * creditsPerSecond) / 1000);
}

/** Credits for a call at integer rates, rounded up to a whole credit (never undercharges by a fraction). */
export function creditsAtRates(usage: Usage, rates: PriceRates): number {
  const microCredits =
    BigInt(usage.inputTokens) * BigInt(rates.input) +
    BigInt(usage.outputTokens) * BigInt(rates.output) +
    BigInt(usage.cacheReadTokens) * BigInt(rates.cacheRead) +
    BigInt(usage.cacheWriteTokens) * BigInt(rates.cacheWrite);
  const whole = microCredits / BigInt(CREDITS_PER_USD);
  return Number(microCredits % BigInt(CREDITS_PER_USD) === 0n ? whole : whole + 1n);
}

/** Credits for a call at a dollar price (exact for prices with up to 6 decimals). */
export function creditsFor(usage: Usage, price: ModelPrice): number {
  return creditsAtRates(usage, ratesOf(price));
}

export function formatCredits(credits: number): string {
  const usd = credits / CREDITS_PER_USD;
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/**
 * Dollars for dashboards: four decimals below $1 (so a single small call
 * still shows), two above, with thousands separators.
 */
export function formatUsd(credits: number): string {
  const usd = credits / CREDITS_PER_USD;
  if (usd === 0) return "$0";
  const digits = Math.abs(usd) < 1 ? 4 : 2;
  return `${usd < 0 ? "-" : ""}$${Math.abs(usd).toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}
