import { sql } from "drizzle-orm";
import { index, integer, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { agents } from "./agents";
import { agentRuns } from "./runs";
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

/**
 * A door session: one run of the agent for everything an outside client does
 * through one MCP session. The id is the `Mcp-Session-Id` the server issues at
 * `initialize`; it lives here, not in a process, so any instance can answer
 * the session's next request. A client without a session gets a session of
 * one call. `runId` is set by the session's first tool call; `endedAt` when
 * the client ends it, it is idle too long, or its run ends.
 */
export const doorSessions = pgTable(
  "door_sessions",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    tokenId: uuid()
      .notNull()
      .references(() => doorTokens.id, { onDelete: "cascade" }),
    runId: uuid().references(() => agentRuns.id, { onDelete: "cascade" }),
    lastSeenAt: at().notNull().defaultNow(),
    endedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("door_sessions_run_key").on(t.runId), index("door_sessions_open_idx").on(t.lastSeenAt).where(sql`${t.endedAt} is null`)],
);

export type DoorSession = typeof doorSessions.$inferSelect;
