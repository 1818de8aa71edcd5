import { customType, index, jsonb, pgEnum, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id } from "./common";
import { agents } from "./agents";
import { sessions } from "./chat";
import { agentRuns } from "./runs";
import { users, workspaces } from "./workspaces";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

export const memoryKindEnum = pgEnum("memory_kind", ["note", "reply"]);
export const memoryScopeEnum = pgEnum("memory_scope", ["private", "shared"]);

/**
 * What an agent chose to remember, and each reply it gave; searched by full
 * text. A private memory (written in a person's chat) is recalled only in that
 * person's chats with the agent; a shared one in every run of the agent
 * (rules in lib/access). Rows from before scopes existed default to shared.
 * `taint` is what had reached the writing run (`web:host`, `agent:handle`):
 * a tainted memory is never put in a system prompt, and whoever recalls it carries it on.
 */
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
    scope: memoryScopeEnum().notNull().default("shared"),
    /** The person whose chat (or chain) wrote it, and the chat, if any. */
    ownerUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    sessionId: uuid().references(() => sessions.id, { onDelete: "set null" }),
    content: text().notNull(),
    taint: jsonb().$type<string[]>().notNull().default([]),
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
