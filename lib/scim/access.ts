import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Db } from "../db/client";
import { apiKeys, doorTokens, memberships, users } from "../db/schema";
import { revokeUserSessions } from "../auth/sessions";
import { dropMember } from "../workspaces/members";
import { endSoloApproval, isDecidingRole } from "../safety/solo-approval";
import { BY_IDENTITY_PROVIDER, roleOfScimUser } from "./roles";

export interface EndedAccess {
  /** The role the person had here, or null when they were no longer a member. */
  role: string | null;
  sessionsEnded: number;
  apiKeysRevoked: number;
  doorTokensRevoked: number;
}

/**
 * What deactivating a provisioned person does, in the caller's transaction: their membership ends (never the last
 * owner's), every session of theirs ends (in every workspace: a session is the person's, not a workspace's), and the
 * API keys and live door tokens they made here are revoked. Open event streams end at their next access check.
 * Their history (chats, runs, decisions, the audit log) stays.
 */
export async function endAccess(tx: Db, workspaceId: string, userId: string): Promise<EndedAccess> {
  const [member] = await tx
    .select({ userId: users.id, email: users.email, role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  if (member) await dropMember(tx, workspaceId, member, { kind: "system" }, BY_IDENTITY_PROVIDER);
  const sessionsEnded = await revokeUserSessions(tx, userId, "removed");
  const now = new Date();
  // Written here rather than through the API keys' own module: a key also stops working once its maker is no longer
  // a member, and this makes that permanent, so a person added again does not get their old keys back.
  const keys = await tx
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.createdBy, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  const tokens = await tx
    .update(doorTokens)
    .set({ revokedAt: now })
    .where(
      and(
        eq(doorTokens.workspaceId, workspaceId),
        eq(doorTokens.createdByUserId, userId),
        isNull(doorTokens.revokedAt),
        or(isNull(doorTokens.expiresAt), gt(doorTokens.expiresAt, now)),
      ),
    )
    .returning({ id: doorTokens.id });
  return { role: member?.role ?? null, sessionsEnded, apiKeysRevoked: keys.length, doorTokensRevoked: tokens.length };
}

/** What reactivating does: the person is a member again, with the role their groups give (member without one). */
export async function restoreAccess(tx: Db, workspaceId: string, scimUserId: string, userId: string): Promise<{ role: string; joined: boolean }> {
  const [member] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  if (member) return { role: member.role, joined: false };
  const role = await roleOfScimUser(tx, workspaceId, scimUserId);
  // A concurrent request that already added them is not a second joining.
  const inserted = await tx.insert(memberships).values({ workspaceId, userId, role }).onConflictDoNothing().returning({ role: memberships.role });
  if (inserted.length === 0) return { role, joined: false };
  // A second person who may decide: the owner no longer approves their own requests.
  if (isDecidingRole(role)) await endSoloApproval(tx, workspaceId, userId);
  return { role, joined: true };
}
