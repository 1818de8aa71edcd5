/**
 * Sign-ins (by password or through an identity provider), refused passwords and sign-outs in the audit log. An account is not a workspace's, so each is recorded in
 * every workspace the person belongs to: each workspace's managers see when its people sign in and out. A refused
 * password for an address that has no account is recorded nowhere (there is no workspace to tell, and the log must
 * not become a list of guessed addresses).
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { memberships, users } from "../db/schema";
import { recordAudit } from "../audit";

export type SignInEvent = "auth.signed_in" | "auth.sso_signed_in" | "auth.sign_in_failed" | "auth.signed_out";

export async function auditSignIn(
  db: Db,
  who: { userId: string } | { email: string },
  action: SignInEvent,
  address: string | null,
  detail: Record<string, unknown> = {},
): Promise<void> {
  const rows =
    "userId" in who
      ? await db.select({ userId: memberships.userId, workspaceId: memberships.workspaceId }).from(memberships).where(eq(memberships.userId, who.userId))
      : await db
          .select({ userId: memberships.userId, workspaceId: memberships.workspaceId })
          .from(memberships)
          .innerJoin(users, eq(users.id, memberships.userId))
          .where(eq(sql`lower(${users.email})`, who.email.trim().toLowerCase()));
  for (const row of rows) {
    await recordAudit(db, { workspaceId: row.workspaceId, actor: { kind: "user", id: row.userId }, action, target: { type: "user", id: row.userId }, detail: { ...detail, address } });
  }
}

/** An owner's password where their workspace requires SSO: recorded in each such workspace, for its owners to see. */
export async function auditBreakGlass(db: Db, userId: string, workspaceIds: string[], address: string | null): Promise<void> {
  for (const workspaceId of workspaceIds) {
    await recordAudit(db, { workspaceId, actor: { kind: "user", id: userId }, action: "auth.break_glass", target: { type: "user", id: userId }, detail: { address } });
  }
}
