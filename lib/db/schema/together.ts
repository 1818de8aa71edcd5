import { bigint, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./common";
import { agents } from "./agents";
import { agentRuns, steps } from "./runs";
import { users, workspaces } from "./workspaces";

/** A conversation between two agents; `hops` bounds ping-pong between them. */
export const agentThreads = pgTable(
  "agent_threads",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** The two agents, stored in a fixed order so a pair has one thread. */
    agentLowId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    agentHighId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    hops: integer().notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("agent_threads_pair_key").on(t.workspaceId, t.agentLowId, t.agentHighId)],
);

export const rooms = pgTable(
  "rooms",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    subject: text().notNull().default(""),
    createdByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("rooms_workspace_name_key").on(t.workspaceId, t.name)],
);

export const roomMembers = pgTable(
  "room_members",
  {
    roomId: uuid()
      .notNull()
      .references(() => rooms.id, { onDelete: "cascade" }),
    agentId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.roomId, t.agentId] }), index("room_members_agent_idx").on(t.agentId)],
);

/** A message from an agent (or a person, into a room) to another agent or a room. */
export const agentMessages = pgTable(
  "agent_messages",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    threadId: uuid().references(() => agentThreads.id, { onDelete: "cascade" }),
    roomId: uuid().references(() => rooms.id, { onDelete: "cascade" }),
    fromAgentId: uuid().references(() => agents.id, { onDelete: "set null" }),
    fromUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    toAgentId: uuid().references(() => agents.id, { onDelete: "set null" }),
    runId: uuid().references(() => agentRuns.id, { onDelete: "set null" }),
    stepId: uuid().references(() => steps.id, { onDelete: "set null" }),
    body: text().notNull(),
    hop: integer().notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    index("agent_messages_workspace_created_idx").on(t.workspaceId, t.createdAt),
    index("agent_messages_thread_idx").on(t.threadId, t.createdAt),
    index("agent_messages_room_idx").on(t.roomId, t.createdAt),
  ],
);

/** The world feed journal: one row per item, sequenced per workspace, written before it is broadcast. */
export const feedItems = pgTable(
  "feed_items",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    seq: bigint({ mode: "number" }).notNull(),
    kind: text().notNull(),
    agentId: uuid().references(() => agents.id, { onDelete: "set null" }),
    targetAgentId: uuid().references(() => agents.id, { onDelete: "set null" }),
    roomId: uuid().references(() => rooms.id, { onDelete: "set null" }),
    threadId: uuid().references(() => agentThreads.id, { onDelete: "set null" }),
    runId: uuid().references(() => agentRuns.id, { onDelete: "set null" }),
    stepId: uuid().references(() => steps.id, { onDelete: "set null" }),
    approvalId: uuid(),
    payload: jsonb().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.seq] }),
    index("feed_items_workspace_created_idx").on(t.workspaceId, t.createdAt),
  ],
);

export type AgentThread = typeof agentThreads.$inferSelect;
export type Room = typeof rooms.$inferSelect;
export type AgentMessage = typeof agentMessages.$inferSelect;
export type FeedItem = typeof feedItems.$inferSelect;
