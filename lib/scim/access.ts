import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client";
import { memberships, users } from "../db/schema";
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
 * owner's), and with it the API keys and door tokens they made here (see `dropMember`). Their open event streams here
 * end at the next access check, within `CLAWDECK_STREAM_RECHECK_SECONDS`. When this was their last workspace, every
 * session of theirs ends too; a person who is still a member elsewhere stays signed in there, since one workspace's
 * identity provider does not speak for another workspace. Their history (chats, runs, decisions, the audit log) stays.
 */
export async function endAccess(tx: Db, workspaceId: string, userId: string): Promise<EndedAccess> {
  const [member] = await tx
    .select({ userId: users.id, email: users.email, role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  const revoked = member ? await dropMember(tx, workspaceId, member, { kind: "system" }, BY_IDENTITY_PROVIDER) : { apiKeysRevoked: 0, doorTokensRevoked: 0 };
  const [elsewhere] = await tx.select({ workspaceId: memberships.workspaceId }).from(memberships).where(eq(memberships.userId, userId)).limit(1);
  const sessionsEnded = elsewhere ? 0 : await revokeUserSessions(tx, userId, "removed");
  return { role: member?.role ?? null, sessionsEnded, ...revoked };
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
