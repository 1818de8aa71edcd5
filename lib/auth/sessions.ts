import { and, eq, gt, isNull, ne, sql } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "../db/client";
import { authSessions, memberships, users, workspaces, type Role } from "../db/schema";
import type { PublicUser } from "../workspaces/users";
import type { WorkspaceMembership } from "../workspaces/workspaces";

export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

export type RevokeReason = "sign_out" | "password_changed" | "password_reset" | "removed";

/** How a person proved who they are: a password, their identity provider, or an owner's password where SSO is required. */
export type SignInMethod = "password" | "sso" | "break_glass";

/** Opens a server-side session for a user who just proved who they are; its id goes into the cookie. */
export async function createChat(db: Db, userId: string, method: SignInMethod = "password", maxAgeSeconds = SESSION_MAX_AGE_SECONDS): Promise<string> {
  const [row] = await db
    .insert(authSessions)
    .values({ userId, method, expiresAt: new Date(Date.now() + maxAgeSeconds * 1000) })
    .returning({ id: authSessions.id });
  return row!.id;
}

/**
 * The user of a live session: the row exists, belongs to that user, is not
 * revoked and not expired. Anything else is no session at all.
 */
export async function userOfSession(db: Db, sessionId: unknown, userId: unknown): Promise<PublicUser | null> {
  if (!z.uuid().safeParse(sessionId).success || !z.uuid().safeParse(userId).success) return null;
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name })
    .from(authSessions)
    .innerJoin(users, eq(users.id, authSessions.userId))
    .where(
      and(
        eq(authSessions.id, sessionId as string),
        eq(authSessions.userId, userId as string),
        isNull(authSessions.revokedAt),
        gt(authSessions.expiresAt, new Date()),
      ),
    )
    .limit(1);
  return row ?? null;
}

/** Ends one session (signing out of this browser). */
export async function revokeSession(db: Db, sessionId: unknown, reason: RevokeReason = "sign_out"): Promise<void> {
  if (!z.uuid().safeParse(sessionId).success) return;
  await db
    .update(authSessions)
    .set({ revokedAt: new Date(), revokedReason: reason })
    .where(and(eq(authSessions.id, sessionId as string), isNull(authSessions.revokedAt)));
}

/** Ends every session of a user, except optionally the one making the change. Returns how many ended. */
export async function revokeUserSessions(
  db: Db,
  userId: string,
  reason: RevokeReason,
  options: { except?: string } = {},
): Promise<number> {
  const rows = await db
    .update(authSessions)
    .set({ revokedAt: new Date(), revokedReason: reason })
    .where(
      and(
        eq(authSessions.userId, userId),
        isNull(authSessions.revokedAt),
        options.except ? ne(authSessions.id, options.except) : undefined,
      ),
    )
    .returning({ id: authSessions.id });
  return rows.length;
}

export interface SessionWithWorkspace {
  user: PublicUser;
  /** The membership asked for (by slug or id), or the one opened last when none is named; undefined when there is none. */
  workspace?: WorkspaceMembership;
  /** Whether the named workspace is already the one this person opened last (so there is nothing to record). */
  openedLast: boolean;
}

/**
 * `userOfSession` and the person's membership in one round trip: the same
 * rules for the session (the row exists, belongs to that user, is not revoked
 * and not expired), then the workspace named by slug or id, or without a name
 * the one they opened last (the order of `defaultWorkspaceForUser`).
 */
export async function sessionWithWorkspace(
  db: Db,
  sessionId: unknown,
  userId: unknown,
  named: { slug: string } | { id: string } | null,
): Promise<SessionWithWorkspace | null> {
  if (!z.uuid().safeParse(sessionId).success || !z.uuid().safeParse(userId).success) return null;
  // A malformed id or slug names no workspace at all (never the default one).
  const pick = !named
    ? sql`true`
    : "id" in named
      ? z.uuid().safeParse(named.id).success
        ? sql`w.id = ${named.id}`
        : sql`false`
      : named.slug.includes("\0")
        ? sql`false`
        : sql`w.slug = ${named.slug}`;
  const order = named ? sql`` : sql`order by m.last_opened_at desc nulls last, m.created_at asc, w.id desc`;
  const rows = rowsOf<{
    id: string;
    email: string;
    name: string;
    workspace_id: string | null;
    workspace_slug: string | null;
    workspace_name: string | null;
    role: Role | null;
    opened_last: boolean | null;
  }>(
    await db.execute(sql`
      select u.id, u.email, u.name, mw.workspace_id, mw.workspace_slug, mw.workspace_name, mw.role, mw.opened_last
      from ${authSessions} s
      join ${users} u on u.id = s.user_id
      left join lateral (
        select w.id as workspace_id, w.slug as workspace_slug, w.name as workspace_name, m.role,
          (m.last_opened_at is not null and not exists (
            select 1 from ${memberships} other
            where other.user_id = m.user_id and other.workspace_id <> m.workspace_id
              and other.last_opened_at >= m.last_opened_at)) as opened_last
        from ${memberships} m join ${workspaces} w on w.id = m.workspace_id
        where m.user_id = u.id and ${pick}
        ${order}
        limit 1
      ) mw on true
      where s.id = ${sessionId as string} and s.user_id = ${userId as string}
        and s.revoked_at is null and s.expires_at > ${new Date().toISOString()}::timestamptz
      limit 1`),
  );
  const row = rows[0];
  if (!row) return null;
  const user = { id: row.id, email: row.email, name: row.name };
  if (!row.workspace_id) return { user, openedLast: false };
  return {
    user,
    workspace: { id: row.workspace_id, slug: row.workspace_slug!, name: row.workspace_name!, role: row.role! },
    openedLast: row.opened_last === true,
  };
}
