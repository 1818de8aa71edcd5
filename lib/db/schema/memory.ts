import { customType, index, pgEnum, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id } from "./common";
import { agents } from "./agents";
import { agentRuns } from "./runs";
import { workspaces } from "./workspaces";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

export const memoryKindEnum = pgEnum("memory_kind", ["note", "reply"]);

/** What an agent chose to remember, and each reply it gave; searched by full text. */
export const agentMemories = pgTable(
  "agent_memories",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    runId: uuid().references(() => agentRuns.id, { onDelete: "set null" }),
    kind: memoryKindEnum().notNull().default("note"),
    content: text().notNull(),
    search: tsvector().generatedAlwaysAs(sql`to_tsvector('english', content)`),
    createdAt: createdAt(),
  },
  (t) => [index("agent_memories_search_idx").using("gin", t.search), index("agent_memories_agent_idx").on(t.agentId, t.createdAt)],
);

/**
 * Messages that an external-send tool would have sent, kept here when the
 * workspace has no connection for that service. Never sent anywhere.
 */
export const outboxMessages = pgTable(
  "outbox_messages",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: uuid().references(() => agents.id, { onDelete: "set null" }),
    runId: uuid().references(() => agentRuns.id, { onDelete: "set null" }),
    stepId: uuid(),
    service: text().notNull(),
    destination: text().notNull(),
    body: text().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("outbox_messages_workspace_idx").on(t.workspaceId, t.createdAt)],
);

export type AgentMemory = typeof agentMemories.$inferSelect;
export type OutboxMessage = typeof outboxMessages.$inferSelect;
