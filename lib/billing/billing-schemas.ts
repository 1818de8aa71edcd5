/** What the prices, reconciliation and usage report APIs answer with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate, nullableDate } from "../shared-schemas";

/** Credits per million tokens. */
const modelPrice = { input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number() };
const priceSource = z.enum(["workspace", "built-in"]);

export const priceListSchema = z.object({
  prices: z.array(
    z.object({
      ...modelPrice,
      model: z.string(),
      source: priceSource,
      /** The offline model's price is a demo figure: nothing is really spent. */
      nominal: z.boolean(),
      /** A built-in price replaced by a workspace price for the same model. */
      overridden: z.boolean(),
    }),
  ),
  /** Charged for models with no price; such charges are flagged. */
  defaultPrice: z.object({ ...modelPrice, source: priceSource }),
  /** US dollars per second of an agent's computer (a command, a browser call); the built-in price is nominal. */
  compute: z.object({ usdPerSecond: z.number(), source: priceSource, nominal: z.boolean() }),
});
export type PriceList = z.infer<typeof priceListSchema>;

export const reconciliationViewSchema = z.object({
  lastRunAt: nullableDate,
  checkedUntil: nullableDate,
  findings: z.array(
    z.object({
      id: z.number(),
      runId: id,
      agentHandle: z.nullable(z.string()),
      model: z.string(),
      outcome: z.enum(["filled", "flagged"]),
      reason: z.string(),
      runInputTokens: z.number(),
      runOutputTokens: z.number(),
      ledgerInputTokens: z.number(),
      ledgerOutputTokens: z.number(),
      filledCredits: z.number(),
      createdAt: isoDate,
    }),
  ),
});
export type ReconciliationView = z.infer<typeof reconciliationViewSchema>;

const usageTotals = {
  calls: z.number(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  credits: z.number(),
  unpricedCalls: z.number(),
  computeMs: z.number(),
  computeCalls: z.number(),
};

export const usageReportSchema = z.object({
  range: z.object({ from: isoDate, to: isoDate }),
  group: z.enum(["agent", "model", "source", "mission", "person"]),
  granularity: z.enum(["hour", "day"]),
  rows: z.array(
    z.object({
      ...usageTotals,
      key: z.string(),
      label: z.string(),
      /** Spend on the offline model: a nominal price, nothing really spent. */
      nominal: z.boolean(),
      /** Grouped by agent: the agent's own colour. */
      color: z.optional(z.string()),
    }),
  ),
  totals: z.object(usageTotals),
  /** Credits and tokens per hour or per day and per row key. */
  series: z.array(z.object({ at: isoDate, key: z.string(), credits: z.number(), tokens: z.number() })),
});
export type UsageReport = z.infer<typeof usageReportSchema>;
