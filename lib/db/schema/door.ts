import { index, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { at, createdAt, id } from "./common";
import { users, workspaces } from "./workspaces";

/**
 * A door token lets an agent outside Clawdeck act as exactly one of the
 * workspace's agents over MCP. Only the SHA-256 of the token is stored; the
 * token itself is shown once, when it is made.
 */
export const doorTokens = pgTable(
  "door_tokens",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    name: text().notNull(),
    tokenHash: text().notNull(),
    /** The first characters of the token, to tell tokens apart in a list. */
    prefix: text().notNull(),
    createdByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    expiresAt: at(),
    revokedAt: at(),
    lastUsedAt: at(),
    callCount: integer().notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("door_tokens_hash_key").on(t.tokenHash), index("door_tokens_workspace_idx").on(t.workspaceId, t.agentId)],
);

export type DoorToken = typeof doorTokens.$inferSelect;
