import { boolean, index, pgEnum, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./common";
import { agents } from "./agents";
import { users, workspaces } from "./workspaces";

export const messageRoleEnum = pgEnum("message_role", ["user", "assistant"]);

/** A chat session between one person and one agent. */
export const sessions = pgTable(
  "sessions",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    userId: uuid().references(() => users.id, { onDelete: "set null" }),
    title: text().notNull().default("New chat"),
    /** Once true (the first message named it, or its person renamed it), the title is never replaced automatically. */
    titleChosen: boolean().notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("sessions_workspace_user_idx").on(t.workspaceId, t.userId, t.updatedAt)],
);

export const messages = pgTable(
  "messages",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    sessionId: uuid()
      .notNull()
      .references(() => sessions.id, { onDelete: "cascade" }),
    role: messageRoleEnum().notNull(),
    content: text().notNull().default(""),
    /** The run that produced (assistant) or was started by (user) this message. */
    runId: uuid(),
    userId: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("messages_session_idx").on(t.sessionId, t.createdAt)],
);

export type Session = typeof sessions.$inferSelect;
export type Message = typeof messages.$inferSelect;
