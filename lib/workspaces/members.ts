import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { apiKeys, doorTokens, invitations, memberships, users, type Role } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit, type AuditInput } from "../audit";
import { endSoloApproval, isDecidingRole } from "../safety/solo-approval";
import { can } from "../access/capabilities";
import { roleSchema } from "./roles";

export interface Member {
  userId: string;
  email: string;
  name: string;
  role: Role;
  joinedAt: Date;
}

export interface Actor {
  userId: string;
  role: Role;
}

export const changeRoleSchema = z.object({ role: roleSchema });

export async function listMembers(db: Db, workspaceId: string): Promise<Member[]> {
  return db
    .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, workspaceId))
    .orderBy(asc(users.name), asc(users.email));
}

async function getMember(db: Db, workspaceId: string, userId: string): Promise<Member> {
  if (!z.uuid().safeParse(userId).success) throw new AppError("not_found:member");
  const [row] = await db
    .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
    .limit(1);
  if (!row) throw new AppError("not_found:member");
  return row;
}

/** Managers manage people; only an owner grants, changes or removes the owner role. */
export function assertCanManage(actor: Actor, role: Role) {
  if (!can(actor.role, "members.manage")) throw new AppError("forbidden:members", "Only owners and managers manage members.");
  if (role === "owner" && !can(actor.role, "owners.manage")) throw new AppError("forbidden:role", "Only an owner can grant, change or remove the owner role.");
}

/** Whether a person of `role` (null: no longer a member) may grant `granted`: the rule of `assertCanManage`. */
export function canGrant(role: Role | null, granted: Role): boolean {
  return role !== null && can(role, "members.manage") && (granted !== "owner" || can(role, "owners.manage"));
}

/**
 * Revokes the pending invitations a person made in the workspace that their role (`role`, null once removed) no
 * longer lets them grant, in the caller's transaction: an invitation is never worth more than its maker's authority.
 */
async function revokeInvitationsBeyond(tx: Db, workspaceId: string, inviterId: string, role: Role | null, actor: AuditInput["actor"]): Promise<void> {
  const pending = await tx
    .select({ id: invitations.id, email: invitations.email, role: invitations.role })
    .from(invitations)
    .where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.invitedBy, inviterId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .for("update");
  for (const invitation of pending.filter((i) => !canGrant(role, i.role))) {
    await tx.update(invitations).set({ revokedAt: new Date() }).where(eq(invitations.id, invitation.id));
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "invitation.revoked",
      target: { type: "invitation", id: invitation.id },
      detail: { email: invitation.email, role: invitation.role, why: role === null ? "Its maker was removed from the workspace." : `Its maker is now a ${role}.` },
    });
  }
}

/** Locks the owner rows, so two concurrent demotions cannot both pass the last-owner check. */
async function countOwners(db: Db, workspaceId: string): Promise<number> {
  const owners = await db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.role, "owner")))
    .for("update");
  return owners.length;
}

export async function changeMemberRole(db: Db, workspaceId: string, actor: Actor, userId: string, role: Role): Promise<Member> {
  return db.transaction(async (tx) => {
    const member = await getMember(tx, workspaceId, userId);
    assertCanManage(actor, member.role);
    assertCanManage(actor, role);
    if (member.role === role) return member;
    await setMemberRole(tx, workspaceId, { userId, from: member.role, to: role }, { kind: "user", id: actor.userId });
    return { ...member, role };
  });
}

/**
 * Moves a member from one role to another in the caller's transaction, whoever asked (a manager, the identity
 * provider): never the last owner away from owner; what the new role changes follows, and it is audited.
 */
export async function setMemberRole(
  tx: Db,
  workspaceId: string,
  change: { userId: string; from: Role; to: Role },
  by: AuditInput["actor"],
  detail: Record<string, unknown> = {},
): Promise<void> {
  const { userId, from, to } = change;
  if (from === "owner" && (await countOwners(tx, workspaceId)) <= 1) {
    throw new AppError("conflict:last_owner", "A workspace needs at least one owner. Make someone else an owner first.");
  }
  await tx.update(memberships).set({ role: to }).where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  // A second person who may decide: the owner no longer approves their own requests.
  if (isDecidingRole(to) && !isDecidingRole(from)) await endSoloApproval(tx, workspaceId, userId);
  await revokeInvitationsBeyond(tx, workspaceId, userId, to, by);
  await recordAudit(tx, { workspaceId, actor: by, action: "member.role_changed", target: { type: "user", id: userId }, detail: { from, to, ...detail } });
}

export async function removeMember(db: Db, workspaceId: string, actor: Actor, userId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const member = await getMember(tx, workspaceId, userId);
    assertCanManage(actor, member.role);
    await dropMember(tx, workspaceId, member, { kind: "user", id: actor.userId });
  });
}

/**
 * Ends a membership in the caller's transaction, whoever asked: never the last owner's. What the person made that lets
 * others in or acts for them goes with it, for good (a person added back does not get it back): their invitations,
 * their API keys and their live door tokens here. Audited with what was revoked.
 */
export async function dropMember(
  tx: Db,
  workspaceId: string,
  member: Pick<Member, "userId" | "email" | "role">,
  by: AuditInput["actor"],
  detail: Record<string, unknown> = {},
): Promise<{ apiKeysRevoked: number; doorTokensRevoked: number }> {
  if (member.role === "owner" && (await countOwners(tx, workspaceId)) <= 1) {
    throw new AppError("conflict:last_owner", "A workspace needs at least one owner. Make someone else an owner first.");
  }
  await tx.delete(memberships).where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, member.userId)));
  await revokeInvitationsBeyond(tx, workspaceId, member.userId, null, by);
  const now = new Date();
  const keys = await tx
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.createdBy, member.userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  const tokens = await tx
    .update(doorTokens)
    .set({ revokedAt: now })
    .where(and(eq(doorTokens.workspaceId, workspaceId), eq(doorTokens.createdByUserId, member.userId), isNull(doorTokens.revokedAt)))
    .returning({ id: doorTokens.id });
  const revoked = { apiKeysRevoked: keys.length, doorTokensRevoked: tokens.length };
  await recordAudit(tx, {
    workspaceId,
    actor: by,
    action: "member.removed",
    target: { type: "user", id: member.userId },
    detail: { email: member.email, role: member.role, ...revoked, ...detail },
  });
  return revoked;
}

export async function countMembers(db: Db, workspaceId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(memberships).where(eq(memberships.workspaceId, workspaceId));
  return Number(row?.n ?? 0);
}
