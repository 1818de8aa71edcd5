import { and, asc, count, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit";
import type { Db } from "../db/client";
import { scimGroupMembers, scimGroups, scimUsers, type ScimGroup } from "../db/schema";
import { AppError } from "../errors";
import type { ScimFilter } from "./filter";
import { parsePath, type PatchOperation } from "./patch";
import { listResponse, locationOf, schemaIds, type Page } from "./protocol";
import { isUuid, readResource, uniquely } from "./resource";
import { applyGroupRoles, BY_IDENTITY_PROVIDER } from "./roles";
import type { ScimScope } from "./users";

const memberSchema = z.looseObject({ value: z.string().max(100) });
const groupSchema = z.looseObject({
  displayName: z.string().trim().min(1).max(200),
  externalId: z.string().max(500).nullish(),
  members: z.array(memberSchema).max(10_000).nullish(),
});
const CANONICAL = ["schemas", "id", "meta", "displayName", "externalId", "members"] as const;

/** A group as it is about to be written: its name, external id and the SCIM ids of its members. */
interface GroupState {
  displayName: string;
  externalId: string | null;
  members: Set<string>;
}

type Members = Map<string, { value: string; display: string }[]>;

function toResource(row: ScimGroup, members: Members | null, scope: ScimScope) {
  return {
    schemas: [schemaIds.group],
    id: row.id,
    displayName: row.displayName,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    ...(members ? { members: (members.get(row.id) ?? []).map((m) => ({ ...m, $ref: locationOf(scope.baseUrl, "Users", m.value) })) } : {}),
    meta: { resourceType: "Group", created: row.createdAt, lastModified: row.updatedAt, location: locationOf(scope.baseUrl, "Groups", row.id) },
  };
}
export type ScimGroupResource = ReturnType<typeof toResource>;

async function membersOf(db: Db, groupIds: string[]): Promise<Members> {
  const members: Members = new Map();
  if (groupIds.length === 0) return members;
  const rows = await db
    .select({ groupId: scimGroupMembers.groupId, value: scimUsers.id, display: scimUsers.userName })
    .from(scimGroupMembers)
    .innerJoin(scimUsers, eq(scimUsers.id, scimGroupMembers.scimUserId))
    .where(inArray(scimGroupMembers.groupId, groupIds))
    .orderBy(asc(scimUsers.userName));
  for (const { groupId, ...member } of rows) members.set(groupId, [...(members.get(groupId) ?? []), member]);
  return members;
}

async function rowOf(db: Db, scope: ScimScope, id: string, lock = false): Promise<ScimGroup> {
  const missing = new AppError("not_found:scim_group", `No group ${JSON.stringify(id.slice(0, 100))} here.`);
  if (!isUuid(id)) throw missing;
  const query = db.select().from(scimGroups).where(and(eq(scimGroups.workspaceId, scope.workspaceId), eq(scimGroups.id, id)));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw missing;
  return row;
}

/** `excludedAttributes=members`: what Entra ID asks for when it only wants to know a group exists. */
export async function getScimGroup(db: Db, scope: ScimScope, id: string, withMembers = true): Promise<ScimGroupResource> {
  const row = await rowOf(db, scope, id);
  return toResource(row, withMembers ? await membersOf(db, [row.id]) : null, scope);
}

export async function listScimGroups(db: Db, scope: ScimScope, filter: ScimFilter<"group"> | null, page: Page, withMembers = true) {
  const where: SQL[] = [eq(scimGroups.workspaceId, scope.workspaceId)];
  if (filter?.attribute === "displayName") where.push(sql`lower(${scimGroups.displayName}) = ${filter.value.toLowerCase()}`);
  if (filter?.attribute === "externalId") where.push(eq(scimGroups.externalId, filter.value));
  if (filter?.attribute === "id") where.push(isUuid(filter.value) ? eq(scimGroups.id, filter.value) : sql`false`);
  const [total] = await db.select({ n: count() }).from(scimGroups).where(and(...where));
  const rows = page.count === 0 ? [] : await db.select().from(scimGroups).where(and(...where)).orderBy(asc(scimGroups.createdAt), asc(scimGroups.id)).offset(page.startIndex - 1).limit(page.count);
  const members = withMembers ? await membersOf(db, rows.map((r) => r.id)) : null;
  return listResponse(rows.map((r) => toResource(r, members, scope)), Number(total?.n ?? 0), page);
}

export async function createScimGroup(db: Db, scope: ScimScope, body: unknown): Promise<ScimGroupResource> {
  const input = readResource(groupSchema, body, CANONICAL);
  const row = await uniquely("A group with that displayName", () =>
    db.transaction(async (tx) => {
      const [made] = await tx.insert(scimGroups).values({ workspaceId: scope.workspaceId, displayName: input.displayName, externalId: input.externalId ?? null }).returning();
      const state: GroupState = { displayName: made!.displayName, externalId: made!.externalId, members: new Set(input.members?.map((m) => m.value)) };
      await write(tx, scope, made!, { ...state, members: new Set() }, state, "scim.group_created");
      return made!;
    }),
  );
  return getScimGroup(db, scope, row.id);
}

export async function replaceScimGroup(db: Db, scope: ScimScope, id: string, body: unknown): Promise<ScimGroupResource> {
  const input = readResource(groupSchema, body, CANONICAL);
  return change(db, scope, id, () => ({ displayName: input.displayName, externalId: input.externalId ?? null, members: new Set(input.members?.map((m) => m.value)) }));
}

/**
 * PATCH on a group: members added (`add` on `members`), removed (`remove` on `members[value eq "…"]`, or on `members`
 * with the ones to remove as its value, or all of them without one) or replaced; the name and external id replaced.
 */
export async function patchScimGroup(db: Db, scope: ScimScope, id: string, operations: PatchOperation[]): Promise<ScimGroupResource> {
  return change(db, scope, id, (state) => operations.reduce(applyGroupOperation, state));
}

function applyGroupOperation(state: GroupState, operation: PatchOperation): GroupState {
  if (operation.path === undefined) {
    if (operation.op === "remove" || typeof operation.value !== "object" || operation.value === null) {
      throw new AppError("bad_request:scim_value", "An operation without a path needs an object of attributes as its value.");
    }
    const named = Object.entries(operation.value).filter(([key]) => key.toLowerCase() !== "id");
    return named.reduce((s, [path, value]) => applyGroupOperation(s, { op: operation.op, path, value }), state);
  }
  const path = parsePath(operation.path, schemaIds.group);
  const attribute = path.attribute.toLowerCase();
  const ids = () => z.array(memberSchema).safeParse(operation.value).data?.map((m) => m.value);
  if (attribute === "members" && !path.sub) {
    const members = new Set(state.members);
    if (path.filter) {
      if (operation.op !== "remove" || path.filter.attribute.toLowerCase() !== "value") throw new AppError("bad_request:scim_path", "Members are chosen by value, and only to be removed.");
      members.delete(String(path.filter.value));
      return { ...state, members };
    }
    const given = ids();
    if (operation.op === "remove") return { ...state, members: given ? new Set([...members].filter((m) => !given.includes(m))) : new Set() };
    if (!given) throw new AppError("bad_request:scim_value", 'members needs a list such as [{"value": "<user id>"}].');
    return { ...state, members: operation.op === "add" ? new Set([...members, ...given]) : new Set(given) };
  }
  if (attribute === "displayname" && !path.filter && !path.sub) {
    const name = z.string().trim().min(1).max(200).safeParse(operation.value);
    if (operation.op === "remove" || !name.success) throw new AppError("bad_request:scim_value", "displayName must be a name of 1 to 200 characters.");
    return { ...state, displayName: name.data };
  }
  if (attribute === "externalid" && !path.filter && !path.sub) {
    if (operation.op === "remove") return { ...state, externalId: null };
    const value = z.string().max(500).safeParse(operation.value);
    if (!value.success) throw new AppError("bad_request:scim_value", "externalId must be text.");
    return { ...state, externalId: value.data };
  }
  throw new AppError("bad_request:scim_path", `A group has no attribute ${JSON.stringify(operation.path)} that can be changed.`);
}

async function change(db: Db, scope: ScimScope, id: string, next: (state: GroupState) => GroupState): Promise<ScimGroupResource> {
  await uniquely("A group with that displayName", () =>
    db.transaction(async (tx) => {
      const row = await rowOf(tx, scope, id, true);
      const members = await tx.select({ id: scimGroupMembers.scimUserId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, row.id));
      const before: GroupState = { displayName: row.displayName, externalId: row.externalId, members: new Set(members.map((m) => m.id)) };
      await write(tx, scope, row, before, next(before), "scim.group_updated");
    }),
  );
  return getScimGroup(db, scope, id);
}

/** Writes a group's new state, then gives each person whose groups changed the role their groups now give them. */
async function write(tx: Db, scope: ScimScope, row: ScimGroup, before: GroupState, after: GroupState, action: string): Promise<void> {
  const added = [...after.members].filter((m) => !before.members.has(m));
  const removed = [...before.members].filter((m) => !after.members.has(m));
  if (added.length > 0) {
    const known = await tx.select({ id: scimUsers.id }).from(scimUsers).where(and(eq(scimUsers.workspaceId, scope.workspaceId), inArray(scimUsers.id, added.filter(isUuid))));
    const unknown = added.find((m) => !known.some((k) => k.id === m));
    if (unknown !== undefined) throw new AppError("bad_request:scim_value", `No user ${JSON.stringify(unknown.slice(0, 100))} here to add to the group.`);
    await tx.insert(scimGroupMembers).values(added.map((scimUserId) => ({ groupId: row.id, scimUserId })));
  }
  if (removed.length > 0) await tx.delete(scimGroupMembers).where(and(eq(scimGroupMembers.groupId, row.id), inArray(scimGroupMembers.scimUserId, removed)));
  const renamed = after.displayName !== before.displayName;
  if (renamed || after.externalId !== before.externalId) {
    await tx.update(scimGroups).set({ displayName: after.displayName, externalId: after.externalId, updatedAt: new Date() }).where(eq(scimGroups.id, row.id));
  } else if (added.length + removed.length > 0) {
    await tx.update(scimGroups).set({ updatedAt: new Date() }).where(eq(scimGroups.id, row.id));
  }
  await recordAudit(tx, {
    workspaceId: scope.workspaceId,
    actor: { kind: "system" },
    action,
    target: { type: "scim_group", id: row.id },
    detail: { ...BY_IDENTITY_PROVIDER, displayName: after.displayName, ...(renamed ? { renamedFrom: before.displayName } : {}), added: added.length, removed: removed.length },
  });
  // A new name may map to another role: then every member's role is looked at again.
  await applyGroupRoles(tx, scope.workspaceId, renamed ? [...new Set([...before.members, ...after.members])] : [...added, ...removed]);
}

export async function deleteScimGroup(db: Db, scope: ScimScope, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await rowOf(tx, scope, id, true);
    const members = await tx.select({ id: scimGroupMembers.scimUserId }).from(scimGroupMembers).where(eq(scimGroupMembers.groupId, row.id));
    await tx.delete(scimGroups).where(eq(scimGroups.id, row.id));
    await recordAudit(tx, {
      workspaceId: scope.workspaceId,
      actor: { kind: "system" },
      action: "scim.group_deleted",
      target: { type: "scim_group", id: row.id },
      detail: { ...BY_IDENTITY_PROVIDER, displayName: row.displayName, members: members.length },
    });
    await applyGroupRoles(tx, scope.workspaceId, members.map((m) => m.id));
  });
}
