import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit";
import type { Db } from "../db/client";
import { memberships, scimGroupMembers, scimGroups, scimUsers, workspaces, type Role, type WorkspaceSettings } from "../db/schema";
import { hasRole } from "../access/role-names";
import { setMemberRole } from "../workspaces/members";
import { groupRoleValues, type GroupRole } from "./scim-schemas";

/** How audit entries name the identity provider as the one who asked. */
export const BY_IDENTITY_PROVIDER = { by: "identity provider" } as const;

export const groupRolesSchema = z
  .record(
    z.string().trim().min(1).max(200).transform((name) => name.toLowerCase()),
    z.enum(groupRoleValues),
  )
  .refine((roles) => Object.keys(roles).length <= 100, "Map at most 100 groups.");

export const groupRolesBodySchema = z.strictObject({ groupRoles: groupRolesSchema });

/** The workspace's group → role mapping (group names in lower case). */
export function groupRolesOf(settings: WorkspaceSettings | undefined): Record<string, GroupRole> {
  const mapped = settings?.scim?.groupRoles ?? {};
  // Never owner, whatever was stored: an owner is made by another owner, in Members.
  return Object.fromEntries(Object.entries(mapped).filter((entry): entry is [string, GroupRole] => entry[1] !== "owner"));
}

export async function readGroupRoles(db: Db, workspaceId: string): Promise<Record<string, GroupRole>> {
  const [row] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return groupRolesOf(row?.settings);
}

/** The highest role the groups give (names in any case), else member. */
export function roleFromGroups(groupNames: string[], groupRoles: Record<string, GroupRole>): GroupRole {
  let role: GroupRole = "member";
  for (const name of groupNames) {
    const mapped = groupRoles[name.toLowerCase()];
    if (mapped && hasRole(mapped, role)) role = mapped;
  }
  return role;
}

/** The role a provisioned person's groups give them here. */
export async function roleOfScimUser(tx: Db, workspaceId: string, scimUserId: string): Promise<GroupRole> {
  const groups = await groupNamesOf(tx, [scimUserId]);
  return roleFromGroups(groups.get(scimUserId) ?? [], await readGroupRoles(tx, workspaceId));
}

async function groupNamesOf(tx: Db, scimUserIds: string[]): Promise<Map<string, string[]>> {
  const names = new Map<string, string[]>();
  if (scimUserIds.length === 0) return names;
  const rows = await tx
    .select({ scimUserId: scimGroupMembers.scimUserId, name: scimGroups.displayName })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(inArray(scimGroupMembers.scimUserId, scimUserIds));
  for (const row of rows) names.set(row.scimUserId, [...(names.get(row.scimUserId) ?? []), row.name]);
  return names;
}

/**
 * Gives each active provisioned person (all of the workspace's, or those named) the role their groups give, in the
 * caller's transaction: audited as a role change by the identity provider. An owner stays an owner (SCIM neither
 * makes nor unmakes owners), and a person no longer a member stays out.
 */
export async function applyGroupRoles(tx: Db, workspaceId: string, scimUserIds?: string[]): Promise<void> {
  if (scimUserIds?.length === 0) return;
  const people = await tx
    .select({ id: scimUsers.id, userId: scimUsers.userId, role: memberships.role })
    .from(scimUsers)
    .innerJoin(memberships, and(eq(memberships.workspaceId, scimUsers.workspaceId), eq(memberships.userId, scimUsers.userId)))
    .where(and(eq(scimUsers.workspaceId, workspaceId), eq(scimUsers.active, true), scimUserIds ? inArray(scimUsers.id, scimUserIds) : undefined));
  const groupRoles = await readGroupRoles(tx, workspaceId);
  const groups = await groupNamesOf(tx, people.map((p) => p.id));
  for (const person of people) {
    const role: Role = roleFromGroups(groups.get(person.id) ?? [], groupRoles);
    if (person.role === "owner" || person.role === role) continue;
    await setMemberRole(tx, workspaceId, { userId: person.userId, from: person.role, to: role }, { kind: "system" }, BY_IDENTITY_PROVIDER);
  }
}

/** Sets the group → role mapping and gives every provisioned person the role it now gives them. */
export async function setGroupRoles(db: Db, workspaceId: string, userId: string, groupRoles: Record<string, GroupRole>): Promise<Record<string, GroupRole>> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("update");
    const settings = row?.settings ?? {};
    await tx
      .update(workspaces)
      .set({ settings: { ...settings, scim: { ...settings.scim, groupRoles } } })
      .where(eq(workspaces.id, workspaceId));
    await recordAudit(tx, { workspaceId, actor: { kind: "user", id: userId }, action: "scim.group_roles_set", detail: { from: groupRolesOf(settings), to: groupRoles } });
    await applyGroupRoles(tx, workspaceId);
    return groupRoles;
  });
}
