import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { invitations, memberships, users, type Role } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
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
async function revokeInvitationsBeyond(tx: Db, workspaceId: string, inviterId: string, role: Role | null, actorId: string): Promise<void> {
  const pending = await tx
    .select({ id: invitations.id, email: invitations.email, role: invitations.role })
    .from(invitations)
    .where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.invitedBy, inviterId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .for("update");
  for (const invitation of pending.filter((i) => !canGrant(role, i.role))) {
    await tx.update(invitations).set({ revokedAt: new Date() }).where(eq(invitations.id, invitation.id));
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actorId },
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
    if (member.role === "owner" && (await countOwners(tx, workspaceId)) <= 1) {
      throw new AppError("conflict:last_owner", "A workspace needs at least one owner. Make someone else an owner first.");
    }
    await tx.update(memberships).set({ role }).where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
    // A second person who may decide: the owner no longer approves their own requests.
    if (isDecidingRole(role) && !isDecidingRole(member.role)) await endSoloApproval(tx, workspaceId, userId);
    await revokeInvitationsBeyond(tx, workspaceId, userId, role, actor.userId);
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actor.userId },
      action: "member.role_changed",
      target: { type: "user", id: userId },
      detail: { from: member.role, to: role },
    });
    return { ...member, role };
  });
}

export async function removeMember(db: Db, workspaceId: string, actor: Actor, userId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const member = await getMember(tx, workspaceId, userId);
    assertCanManage(actor, member.role);
    if (member.role === "owner" && (await countOwners(tx, workspaceId)) <= 1) {
      throw new AppError("conflict:last_owner", "A workspace needs at least one owner. Make someone else an owner first.");
    }
    await tx.delete(memberships).where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
    await revokeInvitationsBeyond(tx, workspaceId, userId, null, actor.userId);
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actor.userId },
      action: "member.removed",
      target: { type: "user", id: userId },
      detail: { email: member.email, role: member.role },
    });
  });
}

export async function countMembers(db: Db, workspaceId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(memberships).where(eq(memberships.workspaceId, workspaceId));
  return Number(row?.n ?? 0);
}
