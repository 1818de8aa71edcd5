import { customType, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id } from "./common";
import { agents } from "./agents";
import { agentRuns } from "./runs";
import { users, workspaces } from "./workspaces";

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => "bytea",
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});

/**
 * The contents of agents' files, stored once per workspace by their SHA-256
 * however many files and versions hold them. Never shared across workspaces:
 * one workspace cannot learn what another stores.
 */
export const fileBlobs = pgTable(
  "file_blobs",
  {
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    sha256: text().notNull(),
    size: integer().notNull(),
    content: bytea().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.sha256] })],
);

/**
 * Every version of every file of an agent's computer: a write adds a version,
 * a delete adds one without contents. The current file tree is each path's
 * latest version that has contents. `runId` and `stepId` name the step that
 * wrote it; `userId` the person who did (a restore), with no run. `taint` is
 * what had reached the writing run (`web:host`, `agent:handle`): whoever reads
 * the file later carries it on, as with memories.
 */
export const agentFileVersions = pgTable(
  "agent_file_versions",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    path: text().notNull(),
    version: integer().notNull(),
    /** Null: the file was deleted at this version. */
    sha256: text(),
    size: integer().notNull().default(0),
    runId: uuid().references(() => agentRuns.id, { onDelete: "set null" }),
    stepId: uuid(),
    userId: uuid().references(() => users.id, { onDelete: "set null" }),
    taint: jsonb().$type<string[]>().notNull().default([]),
    /**
     * The person whose private chat wrote this version: only they (and those who read every chat) may read it. Kept
     * on the version itself, so it stays private when the chat and its runs are deleted.
     */
    privateTo: uuid(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("agent_file_versions_path_version_idx").on(t.agentId, t.path, t.version), index("agent_file_versions_agent_created_idx").on(t.agentId, t.createdAt)],
);

export type AgentFileVersion = typeof agentFileVersions.$inferSelect;
