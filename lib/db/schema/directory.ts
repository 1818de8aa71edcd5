import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./common";
import { roleEnum, users, workspaces } from "./workspaces";

/**
 * A key a script uses instead of a person's password: `Authorization: Bearer ck_…` on the routes people use, with
 * the role it was made with (never above its maker's) and on behalf of its maker. Only the SHA-256 of the key is
 * kept; the key is shown once, when it is made.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    role: roleEnum().notNull(),
    keyHash: text().notNull(),
    /** The first characters of the key, to tell keys apart in a list. */
    prefix: text().notNull(),
    /** Whose key it is: what it does is done on their behalf, and it stops working when they leave. */
    createdBy: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: at(),
    lastUsedAt: at(),
    revokedAt: at(),
    revokedBy: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("api_keys_hash_key").on(t.keyHash), index("api_keys_workspace_idx").on(t.workspaceId)],
);

/**
 * The token an identity provider uses for the workspace's SCIM endpoints. One live token per workspace: making a new
 * one revokes the old. Only its SHA-256 is kept.
 */
export const scimTokens = pgTable(
  "scim_tokens",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    tokenHash: text().notNull(),
    prefix: text().notNull(),
    createdBy: uuid().references(() => users.id, { onDelete: "set null" }),
    lastUsedAt: at(),
    revokedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("scim_tokens_hash_key").on(t.tokenHash),
    uniqueIndex("scim_tokens_live_key")
      .on(t.workspaceId)
      .where(sql`${t.revokedAt} is null`),
  ],
);

/**
 * A person as the workspace's identity provider sees them (a SCIM User). The id is the SCIM resource id; `resource`
 * keeps the attributes as last sent (name, emails, displayName). While `active`, the person is a member of the
 * workspace; deactivated, the membership is gone but this row, and the person's history, stay.
 */
export const scimUsers = pgTable(
  "scim_users",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    userName: text().notNull(),
    externalId: text(),
    active: boolean().notNull().default(true),
    resource: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("scim_users_workspace_user_key").on(t.workspaceId, t.userId),
    uniqueIndex("scim_users_workspace_name_key").on(t.workspaceId, sql`lower(${t.userName})`),
  ],
);

/** A group of the identity provider (a SCIM Group); the workspace's settings map group names to roles. */
export const scimGroups = pgTable(
  "scim_groups",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    displayName: text().notNull(),
    externalId: text(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("scim_groups_workspace_name_key").on(t.workspaceId, sql`lower(${t.displayName})`)],
);

export const scimGroupMembers = pgTable(
  "scim_group_members",
  {
    groupId: uuid()
      .notNull()
      .references(() => scimGroups.id, { onDelete: "cascade" }),
    scimUserId: uuid()
      .notNull()
      .references(() => scimUsers.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.scimUserId] }), index("scim_group_members_user_idx").on(t.scimUserId)],
);

/**
 * A person's account at an identity provider (OpenID Connect): the provider's issuer and the subject it names them
 * by. Sign-in through the provider finds the person by this pair, never by an email alone.
 */
export const userIdentities = pgTable(
  "user_identities",
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The provider's name in the configuration (`CLAWDECK_OIDC_<NAME>_…`), lower case. */
    provider: text().notNull(),
    issuer: text().notNull(),
    subject: text().notNull(),
    email: text().notNull(),
    lastSignInAt: at(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("user_identities_issuer_subject_key").on(t.issuer, t.subject), index("user_identities_user_idx").on(t.userId)],
);

export type ApiKey = typeof apiKeys.$inferSelect;
export type ScimToken = typeof scimTokens.$inferSelect;
export type ScimUser = typeof scimUsers.$inferSelect;
export type ScimGroup = typeof scimGroups.$inferSelect;
export type UserIdentity = typeof userIdentities.$inferSelect;
