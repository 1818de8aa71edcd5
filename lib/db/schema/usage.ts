import { bigint, bigserial, index, type AnyPgColumn, integer, pgEnum, pgTable, primaryKey, text, timestamp, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, updatedAt } from "./common";
import { agents } from "./agents";
import { agentRuns } from "./runs";
import { workspaces } from "./workspaces";

/**
 * What a charge was made for. Only `run` rows point at `agent_runs`;
 * every other source names itself in `sourceKind` + `sourceId` so that no
 * caller is tempted to put a foreign id into `run_id`. `compute` rows are
 * seconds of an agent's computer (a command, a browser call), not model calls:
 * their `model` says which (`sandbox`, `browser`), their `computeMs` how long.
 */
export const usageSourceEnum = pgEnum("usage_source", ["run", "mission_run", "judge", "governor", "door", "compute"]);

/** The usage ledger: one row per model call. Credits are integers (1 credit = 1/1,000,000 USD). */
export const usageEvents = pgTable(
  "usage_events",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: uuid().references(() => agents.id, { onDelete: "set null" }),
    runId: uuid().references(() => agentRuns.id, { onDelete: "set null" }),
    sourceKind: usageSourceEnum().notNull(),
    sourceId: text(),
    model: text().notNull(),
    inputTokens: bigint({ mode: "number" }).notNull().default(0),
    outputTokens: bigint({ mode: "number" }).notNull().default(0),
    cacheReadTokens: bigint({ mode: "number" }).notNull().default(0),
    cacheWriteTokens: bigint({ mode: "number" }).notNull().default(0),
    credits: bigint({ mode: "number" }).notNull().default(0),
    /** Charged at the default price because the model had none. */
    unpriced: integer().notNull().default(0),
    /** Milliseconds of an agent's computer (compute rows only). */
    computeMs: bigint({ mode: "number" }).notNull().default(0),
    idempotencyKey: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("usage_events_idempotency_key").on(t.idempotencyKey),
    index("usage_events_workspace_created_idx").on(t.workspaceId, t.createdAt),
    index("usage_events_run_idx").on(t.runId),
  ],
);

/** A rollup's key and sums, workspace and time first: the order of the covering index that range scans read. */
function rollupColumns<T extends Record<"workspaceId" | "agentId" | "model" | "sourceKind" | "calls" | "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens" | "credits" | "unpricedCalls" | "computeMs", AnyPgColumn>>(t: T, time: AnyPgColumn) {
  return [t.workspaceId, time, t.agentId, t.model, t.sourceKind, t.calls, t.inputTokens, t.outputTokens, t.cacheReadTokens, t.cacheWriteTokens, t.credits, t.unpricedCalls, t.computeMs] as const;
}

/**
 * The keys (besides the time bucket) and the sums a rollup row holds, the same in the hourly and the daily table. A
 * function, so that each table gets columns of its own.
 */
function rollupSums() {
  return {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: uuid(),
    model: text().notNull(),
    sourceKind: usageSourceEnum().notNull(),
    calls: bigint({ mode: "number" }).notNull().default(0),
    inputTokens: bigint({ mode: "number" }).notNull().default(0),
    outputTokens: bigint({ mode: "number" }).notNull().default(0),
    cacheReadTokens: bigint({ mode: "number" }).notNull().default(0),
    cacheWriteTokens: bigint({ mode: "number" }).notNull().default(0),
    credits: bigint({ mode: "number" }).notNull().default(0),
    /** Calls charged at the default price because their model had none. */
    unpricedCalls: bigint({ mode: "number" }).notNull().default(0),
    /** Milliseconds of agents' computers (compute rows). */
    computeMs: bigint({ mode: "number" }).notNull().default(0),
  };
}

/**
 * Hourly sums of the ledger, written in the same transaction as each usage row.
 * `agentId` has no foreign key on purpose: deleting an agent must neither
 * fail on the unique key (two rows becoming "no agent") nor drop its spend.
 */
export const usageRollupsHourly = pgTable(
  "usage_rollups_hourly",
  {
    /** The UTC hour the calls were made in. */
    bucket: timestamp({ withTimezone: true, mode: "date" }).notNull(),
    ...rollupSums(),
  },
  (t) => [
    unique("usage_rollups_hourly_key").on(t.workspaceId, t.bucket, t.agentId, t.model, t.sourceKind).nullsNotDistinct(),
    // Covers every column the cards and the usage page sum: they read it alone (an index-only scan), not the table.
    index("usage_rollups_hourly_covering_idx").on(...rollupColumns(t, t.bucket)),
  ],
);

/**
 * Daily sums of the ledger (UTC days), written in the same transaction as each usage row, beside the hourly
 * ones: the cards' 7-, 30- and 60-day spend reads a day's row instead of its 24 hours. Same keys and columns
 * as the hourly rollups; `day` is the UTC midnight the calls' day began at.
 */
export const usageRollupsDaily = pgTable(
  "usage_rollups_daily",
  {
    day: timestamp({ withTimezone: true, mode: "date" }).notNull(),
    ...rollupSums(),
  },
  (t) => [
    unique("usage_rollups_daily_key").on(t.workspaceId, t.day, t.agentId, t.model, t.sourceKind).nullsNotDistinct(),
    index("usage_rollups_daily_covering_idx").on(...rollupColumns(t, t.day)),
  ],
);

/**
 * A workspace's own price for a model id or id prefix (the longest match
 * wins over the built-in list), or `*` for models that have no price. In
 * credits per million tokens, which is US$ per Mtok × 1,000,000: integers, so
 * every charge is exact.
 */
export const modelPrices = pgTable(
  "model_prices",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    model: text().notNull(),
    inputCreditsPerMtok: bigint({ mode: "number" }).notNull(),
    outputCreditsPerMtok: bigint({ mode: "number" }).notNull(),
    cacheReadCreditsPerMtok: bigint({ mode: "number" }).notNull(),
    cacheWriteCreditsPerMtok: bigint({ mode: "number" }).notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.model] })],
);

/** The workspace's monthly hard cap in credits (agents carry their own on `agents`). */
export const workspaceBudgets = pgTable("workspace_budgets", {
  workspaceId: uuid()
    .primaryKey()
    .references(() => workspaces.id, { onDelete: "cascade" }),
  monthlyBudgetCredits: bigint({ mode: "number" }),
  updatedAt: updatedAt(),
});

/**
 * Budget alerts already raised: one per scope (`workspace` or `agent:<id>`),
 * month and level, so the audit log gets each alert exactly once however many
 * processes notice it.
 */
/** Half the budget spent, 80 % (the warning the pages show), or all of it. */
export type BudgetAlertLevel = "half" | "warning" | "exceeded";

export const budgetAlerts = pgTable(
  "budget_alerts",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    scope: text().notNull(),
    /** First instant of the UTC month. */
    month: timestamp({ withTimezone: true, mode: "date" }).notNull(),
    level: text().$type<BudgetAlertLevel>().notNull(),
    spentCredits: bigint({ mode: "number" }).notNull(),
    budgetCredits: bigint({ mode: "number" }).notNull(),
    createdAt: createdAt(),
    /** When the managers were emailed about it (null: not yet); alerts raised before that existed count as told. */
    notifiedAt: timestamp({ withTimezone: true, mode: "date" }),
    /** What went wrong sending it, in words. */
    notifyError: text(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.scope, t.month, t.level] })],
);

export const reconciliationOutcomeEnum = pgEnum("reconciliation_outcome", ["filled", "flagged"]);

/**
 * What reconciliation found: a finished run whose token totals differ from
 * the sum of its ledger rows. A shortfall is filled with one explicit row;
 * anything else (the ledger holds more than the run) is flagged for a person.
 */
export const usageReconciliations = pgTable(
  "usage_reconciliations",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    runId: uuid()
      .notNull()
      .references(() => agentRuns.id, { onDelete: "cascade" }),
    agentId: uuid(),
    model: text().notNull(),
    outcome: reconciliationOutcomeEnum().notNull(),
    reason: text().notNull(),
    runInputTokens: bigint({ mode: "number" }).notNull(),
    runOutputTokens: bigint({ mode: "number" }).notNull(),
    ledgerInputTokens: bigint({ mode: "number" }).notNull(),
    ledgerOutputTokens: bigint({ mode: "number" }).notNull(),
    ledgerRows: integer().notNull(),
    filledCredits: bigint({ mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("usage_reconciliations_run_key").on(t.runId), index("usage_reconciliations_workspace_created_idx").on(t.workspaceId, t.createdAt)],
);

/** Where the periodic reconciliation got to: runs that finished before `checkedUntil` were checked. */
export const usageReconciliationCursor = pgTable("usage_reconciliation_cursor", {
  id: integer().primaryKey(),
  checkedUntil: at().notNull(),
  lastRunAt: at().notNull(),
});

export type UsageEvent = typeof usageEvents.$inferSelect;
export type ModelPriceRow = typeof modelPrices.$inferSelect;
export type UsageReconciliation = typeof usageReconciliations.$inferSelect;
