import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id } from "./common";
import { roleEnum, users, workspaces } from "./workspaces";

/**
 * A single-use link that lets one person join a workspace. Only the SHA-256
 * of the token is kept; the token itself is shown once, to the inviter. The
 * email is a label for the inviter: acceptance goes by the token alone, or
 * by the email an identity provider verified at a first single sign-on.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    email: text().notNull(),
    role: roleEnum().notNull(),
    tokenHash: text().notNull(),
    invitedBy: uuid().references(() => users.id, { onDelete: "set null" }),
    expiresAt: at().notNull(),
    acceptedAt: at(),
    acceptedBy: uuid().references(() => users.id, { onDelete: "set null" }),
    revokedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("invitations_token_hash_key").on(t.tokenHash), index("invitations_workspace_idx").on(t.workspaceId)],
);

/**
 * One row per signed-in browser. The session cookie carries the id; every
 * request checks the row, so signing out or changing the password ends
 * sessions on the server, not just in the browser.
 */
export const authSessions = pgTable(
  "auth_sessions",
  {
    id: id(),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: at().notNull(),
    revokedAt: at(),
    revokedReason: text(),
    /** How the person proved who they are: `password`, `sso`, or `break_glass` (an owner's password where the workspace requires SSO). */
    method: text().notNull().default("password"),
  },
  (t) => [index("auth_sessions_user_idx").on(t.userId)],
);

export type Invitation = typeof invitations.$inferSelect;
export type AuthSession = typeof authSessions.$inferSelect;
