import { bigint, index, integer, pgEnum, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./common";
import { workspaces } from "./workspaces";

export const agentStatusEnum = pgEnum("agent_status", ["active", "paused"]);

export const agents = pgTable(
  "agents",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    handle: text().notNull(),
    name: text().notNull(),
    description: text().notNull().default(""),
    systemPrompt: text().notNull().default(""),
    /** Model spec: `offline`, a Claude model id, or `<provider>:<model>`. */
    model: text().notNull(),
    tools: text().array().notNull().default([]),
    color: text().notNull().default("#6366f1"),
    status: agentStatusEnum().notNull().default("active"),
    /** Monthly hard cap in credits; null means the workspace budget alone applies. */
    monthlyBudgetCredits: bigint({ mode: "number" }),
    /**
     * What one run of this agent may spend before it asks a manager to go on, in credits; null: no cap per run. An
     * approval lets the run spend this much again (`agent_runs.cap_raised_credits`).
     */
    runCapCredits: bigint({ mode: "number" }),
    /** Bumped by every update; an edit names the version it was made from and is refused when it is stale. */
    version: integer().notNull().default(1),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("agents_workspace_handle_key").on(t.workspaceId, t.handle), index("agents_workspace_idx").on(t.workspaceId)],
);

export type Agent = typeof agents.$inferSelect;
