/** What the usage summary and budgets API answer with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate } from "../shared-schemas";

const nullableNumber = z.nullable(z.number());

export const usageSummarySchema = z.object({
  range: z.object({ from: isoDate, to: isoDate }),
  /** Null for people who may not see spend (members). */
  spend: z.nullable(
    z.object({
      periods: z.array(
        z.object({
          key: z.enum(["range", "7d", "30d"]),
          from: isoDate,
          to: isoDate,
          credits: z.number(),
          previousCredits: z.number(),
          /** Change against the previous period of the same length, or null when that was zero. */
          change: nullableNumber,
        }),
      ),
      topAgents: z.array(z.object({ agentId: z.nullable(id), handle: z.nullable(z.string()), name: z.nullable(z.string()), credits: z.number(), calls: z.number() })),
      /** Credits of the 30-day period spent on the offline model, whose price is nominal. */
      nominalCredits: z.number(),
      savedByCaching: z.object({ range: z.number(), "30d": z.number() }),
    }),
  ),
  activity: z.object({
    runs: z.number(),
    toolCalls: z.number(),
    modelCalls: z.number(),
    chatMessages: z.number(),
    doorCalls: z.number(),
    agentMessages: z.number(),
    approvalsPending: z.number(),
    approvalsDecided: z.number(),
    decisionP50Ms: nullableNumber,
    decisionP95Ms: nullableNumber,
    waitingLong: z.number(),
    waitingLongAfterMinutes: z.number(),
    activeAgents: z.number(),
    failedRuns: z.number(),
    budgetStops: z.number(),
    hourly: z.array(z.object({ hour: isoDate, runs: z.number() })),
  }),
  throughput: z.object({
    tokens: z.number(),
    tokensPerMinute: z.number(),
    runsPerMinute: z.number(),
    runsLastHour: z.number(),
    p50RunMs: nullableNumber,
    p95RunMs: nullableNumber,
    p50FirstTokenMs: nullableNumber,
  }),
});
export type UsageSummary = z.infer<typeof usageSummarySchema>;

export const budgetLineSchema = z.object({
  /** `workspace` or `agent:<id>`. */
  scope: z.string(),
  agentId: z.nullable(id),
  handle: z.nullable(z.string()),
  name: z.nullable(z.string()),
  budgetCredits: nullableNumber,
  spentCredits: z.number(),
  state: z.enum(["none", "ok", "warning", "exceeded"]),
  /** An agent's cap per run (one run asks a manager before it spends more); null: none, and always for the workspace. */
  runCapCredits: nullableNumber,
});

export const budgetOverviewSchema = z.object({
  month: z.object({ start: isoDate, end: isoDate, label: z.string() }),
  workspace: budgetLineSchema,
  agents: z.array(budgetLineSchema),
});
export type BudgetOverview = z.infer<typeof budgetOverviewSchema>;

/** Who decided requests over a range (GET /api/usage/reviews). */
export const reviewsSchema = z.object({
  range: z.object({ from: isoDate, to: isoDate }),
  reviewers: z.array(z.object({ userId: id, name: z.string(), decided: z.number(), approved: z.number(), medianMs: z.number() })),
});
