import { index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./common";
import { users, workspaces } from "./workspaces";

/**
 * A workspace's credential for an outside service. `secret` holds the
 * AES-256-GCM ciphertext; the plaintext never leaves the server and never
 * reaches a model's context.
 */
export const connections = pgTable(
  "connections",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    provider: text().notNull(),
    label: text().notNull(),
    /** Non-secret settings such as a base URL. */
    config: jsonb().$type<Record<string, string>>().notNull().default({}),
    secret: text().notNull(),
    /** Slack's signing secret (sealed like `secret`): what proves a request to the interactions endpoint came from Slack. */
    signingSecret: text(),
    createdByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("connections_workspace_provider_label_key").on(t.workspaceId, t.provider, t.label),
    index("connections_workspace_idx").on(t.workspaceId),
  ],
);

export type Connection = typeof connections.$inferSelect;
