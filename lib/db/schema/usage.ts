import { bigint, bigserial, index, integer, pgEnum, pgTable, text, timestamp, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./common";
import { agents } from "./agents";
import { agentRuns } from "./runs";
import { workspaces } from "./workspaces";

/**
 * What a model call was made for. Only `run` rows point at `agent_runs`;
 * every other source names itself in `sourceKind` + `sourceId` so that no
 * caller is tempted to put a foreign id into `run_id`.
 */
export const usageSourceEnum = pgEnum("usage_source", ["run", "mission_run", "judge", "governor", "door"]);

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
    idempotencyKey: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("usage_events_idempotency_key").on(t.idempotencyKey),
    index("usage_events_workspace_created_idx").on(t.workspaceId, t.createdAt),
    index("usage_events_run_idx").on(t.runId),
  ],
);

/** Hourly sums of the ledger, written in the same transaction as each usage row. */
export const usageRollupsHourly = pgTable(
  "usage_rollups_hourly",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    bucket: timestamp({ withTimezone: true, mode: "date" }).notNull(),
    agentId: uuid().references(() => agents.id, { onDelete: "set null" }),
    model: text().notNull(),
    sourceKind: usageSourceEnum().notNull(),
    calls: bigint({ mode: "number" }).notNull().default(0),
    inputTokens: bigint({ mode: "number" }).notNull().default(0),
    outputTokens: bigint({ mode: "number" }).notNull().default(0),
    cacheReadTokens: bigint({ mode: "number" }).notNull().default(0),
    cacheWriteTokens: bigint({ mode: "number" }).notNull().default(0),
    credits: bigint({ mode: "number" }).notNull().default(0),
  },
  (t) => [
    unique("usage_rollups_hourly_key").on(t.workspaceId, t.bucket, t.agentId, t.model, t.sourceKind).nullsNotDistinct(),
    index("usage_rollups_hourly_workspace_bucket_idx").on(t.workspaceId, t.bucket),
  ],
);

export type UsageEvent = typeof usageEvents.$inferSelect;
