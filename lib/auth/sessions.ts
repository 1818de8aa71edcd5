import { and, eq, gt, isNull, ne } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { authSessions, users } from "../db/schema";
import type { PublicUser } from "../workspaces/users";

export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

export type RevokeReason = "sign_out" | "password_changed" | "password_reset" | "removed";

/** Opens a server-side session for a user who just proved who they are; its id goes into the cookie. */
export async function createSession(db: Db, userId: string, maxAgeSeconds = SESSION_MAX_AGE_SECONDS): Promise<string> {
  const [row] = await db
    .insert(authSessions)
    .values({ userId, expiresAt: new Date(Date.now() + maxAgeSeconds * 1000) })
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
