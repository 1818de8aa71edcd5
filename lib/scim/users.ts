import { and, asc, count, eq, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit";
import type { Db } from "../db/client";
import { memberships, scimGroupMembers, scimGroups, scimUsers, workspaces, type ScimUser } from "../db/schema";
import { AppError } from "../errors";
import { createUserWithoutPassword, emailSchema, getUserByEmail } from "../workspaces/users";
import { ssoOf } from "../auth/sso-settings";
import { endAccess, restoreAccess } from "./access";
import type { ScimFilter } from "./filter";
import { applyOperation, type PatchOperation } from "./patch";
import { listResponse, locationOf, schemaIds, type Page } from "./protocol";
import { booleanish, isUuid, readResource, storedAttributes, uniquely } from "./resource";
import { BY_IDENTITY_PROVIDER } from "./roles";

/** Where the workspace's SCIM endpoints are: the workspace the token speaks for, the base of `meta.location`. */
export interface ScimScope {
  workspaceId: string;
  baseUrl: string;
}

const text = (max: number) => z.string().max(max).nullish();
const userSchema = z.looseObject({
  userName: z.string().trim().min(1).max(254),
  externalId: text(500),
  active: booleanish.default(true),
  displayName: text(200),
  name: z.looseObject({ formatted: text(200), givenName: text(100), familyName: text(100) }).nullish(),
  emails: z.array(z.looseObject({ value: z.string().max(254), primary: booleanish.optional(), type: text(50) })).max(20).nullish(),
});
type UserInput = z.output<typeof userSchema>;
const CANONICAL = ["schemas", "id", "meta", "groups", "password", "userName", "externalId", "active", "displayName", "name", "emails"] as const;
const COLUMNS = ["userName", "externalId", "active"] as const;

/** The person's email: the userName when it is one (it is, in practice), else the primary email. */
function emailOf(input: UserInput): string {
  const primary = input.emails?.find((e) => e.primary === true) ?? input.emails?.[0];
  for (const candidate of [input.userName, primary?.value]) {
    const parsed = emailSchema.safeParse(candidate);
    if (parsed.success) return parsed.data;
  }
  throw new AppError("bad_request:scim_value", "userName or the primary email must be an email address: it is how the person signs in.");
}

function nameOf(input: UserInput, email: string): string {
  const given = [input.name?.givenName, input.name?.familyName].filter(Boolean).join(" ");
  return (input.displayName || input.name?.formatted || given || email.split("@")[0]!).trim().slice(0, 100);
}

type Groups = Map<string, { value: string; display: string }[]>;

function toResource(row: ScimUser, groups: Groups, scope: ScimScope) {
  const extensions = Object.keys(row.resource).filter((key) => key.startsWith("urn:"));
  return {
    schemas: [schemaIds.user, ...extensions],
    id: row.id,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    userName: row.userName,
    active: row.active,
    ...row.resource,
    groups: (groups.get(row.id) ?? []).map((g) => ({ ...g, $ref: locationOf(scope.baseUrl, "Groups", g.value) })),
    meta: { resourceType: "User", created: row.createdAt, lastModified: row.updatedAt, location: locationOf(scope.baseUrl, "Users", row.id) },
  };
}
export type ScimUserResource = ReturnType<typeof toResource>;

async function groupsOf(db: Db, rows: ScimUser[]): Promise<Groups> {
  const groups: Groups = new Map();
  if (rows.length === 0) return groups;
  const found = await db
    .select({ scimUserId: scimGroupMembers.scimUserId, value: scimGroups.id, display: scimGroups.displayName })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .where(inArray(scimGroupMembers.scimUserId, rows.map((r) => r.id)))
    .orderBy(asc(scimGroups.displayName));
  for (const { scimUserId, ...group } of found) groups.set(scimUserId, [...(groups.get(scimUserId) ?? []), group]);
  return groups;
}

async function rowOf(db: Db, scope: ScimScope, id: string, lock = false): Promise<ScimUser> {
  const missing = new AppError("not_found:scim_user", `No user ${JSON.stringify(id.slice(0, 100))} here.`);
  if (!isUuid(id)) throw missing;
  const query = db.select().from(scimUsers).where(and(eq(scimUsers.workspaceId, scope.workspaceId), eq(scimUsers.id, id)));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw missing;
  return row;
}

async function assertUserNameFree(tx: Db, scope: ScimScope, userName: string, except?: string): Promise<void> {
  const [taken] = await tx
    .select({ id: scimUsers.id })
    .from(scimUsers)
    .where(and(eq(scimUsers.workspaceId, scope.workspaceId), sql`lower(${scimUsers.userName}) = ${userName.toLowerCase()}`));
  if (taken && taken.id !== except) throw new AppError("conflict:scim_uniqueness", `A user with userName ${JSON.stringify(userName)} already exists here.`);
}

export async function getScimUser(db: Db, scope: ScimScope, id: string): Promise<ScimUserResource> {
  const row = await rowOf(db, scope, id);
  return toResource(row, await groupsOf(db, [row]), scope);
}

/** A page of the workspace's provisioned people, optionally those whose userName (any case), externalId or id is the one given. */
export async function listScimUsers(db: Db, scope: ScimScope, filter: ScimFilter<"user"> | null, page: Page) {
  const where: SQL[] = [eq(scimUsers.workspaceId, scope.workspaceId)];
  if (filter?.attribute === "userName") where.push(sql`lower(${scimUsers.userName}) = ${filter.value.toLowerCase()}`);
  if (filter?.attribute === "externalId") where.push(eq(scimUsers.externalId, filter.value));
  if (filter?.attribute === "id") where.push(isUuid(filter.value) ? eq(scimUsers.id, filter.value) : sql`false`);
  const [total] = await db.select({ n: count() }).from(scimUsers).where(and(...where));
  const rows = page.count === 0 ? [] : await db.select().from(scimUsers).where(and(...where)).orderBy(asc(scimUsers.createdAt), asc(scimUsers.id)).offset(page.startIndex - 1).limit(page.count);
  const groups = await groupsOf(db, rows);
  return listResponse(rows.map((r) => toResource(r, groups, scope)), Number(total?.n ?? 0), page);
}

/**
 * Provisions a person: the account with that email (made, without a password, when there is none) becomes a member
 * with the role of their groups, member until a group says more. A person who already is a member keeps their role.
 * Only emails of the workspace's own domains (its single sign-on domains) are provisioned, besides its members: one
 * workspace's identity provider never claims a person of another's, and the answer is the same whether or not an
 * account with that email exists.
 */
export async function createScimUser(db: Db, scope: ScimScope, body: unknown): Promise<ScimUserResource> {
  const input = readResource(userSchema, body, CANONICAL);
  const email = emailOf(input);
  const row = await uniquely("That user", () =>
    db.transaction(async (tx) => {
      await assertUserNameFree(tx, scope, input.userName);
      const existing = await getUserByEmail(tx, email);
      if (!(existing && (await isMember(tx, scope.workspaceId, existing.id))) && !(await domainClaimed(tx, scope.workspaceId, email))) {
        throw new AppError(
          "bad_request:scim_value",
          `Only people whose email is in one of this workspace's own domains can be provisioned (an owner adds ${email.split("@")[1]} under Settings, Single sign-on), or people who are already members.`,
        );
      }
      const person = existing ?? (await createUserWithoutPassword(tx, { email, name: nameOf(input, email) }));
      const [made] = await tx
        .insert(scimUsers)
        .values({ workspaceId: scope.workspaceId, userId: person.id, userName: input.userName, externalId: input.externalId ?? null, active: input.active, resource: storedAttributes(input, COLUMNS) })
        .returning();
      const access = input.active ? await restoreAccess(tx, scope.workspaceId, made!.id, person.id) : { ...(await endAccess(tx, scope.workspaceId, person.id)), joined: false };
      await recordAudit(tx, {
        workspaceId: scope.workspaceId,
        actor: { kind: "system" },
        action: "scim.user_created",
        target: { type: "user", id: person.id },
        detail: { ...BY_IDENTITY_PROVIDER, email: person.email, userName: input.userName, active: input.active, newAccount: !existing, role: access.role, joined: access.joined },
      });
      return made!;
    }),
  );
  return toResource(row, new Map(), scope);
}

/** Replaces a person's attributes (PUT); `active` moving either way deactivates or reactivates them. */
export async function replaceScimUser(db: Db, scope: ScimScope, id: string, body: unknown): Promise<ScimUserResource> {
  const input = readResource(userSchema, body, CANONICAL);
  return update(db, scope, id, () => input);
}

/** Applies PATCH operations to a person's attributes, then the result as PUT would. */
export async function patchScimUser(db: Db, scope: ScimScope, id: string, operations: PatchOperation[]): Promise<ScimUserResource> {
  return update(db, scope, id, (row) => {
    const current: Record<string, unknown> = { ...row.resource, userName: row.userName, externalId: row.externalId, active: row.active };
    return readResource(userSchema, operations.reduce((resource, op) => applyOperation(resource, op, schemaIds.user), current), CANONICAL);
  });
}

async function update(db: Db, scope: ScimScope, id: string, next: (row: ScimUser) => UserInput): Promise<ScimUserResource> {
  const row = await uniquely("That user", () =>
    db.transaction(async (tx) => {
      const before = await rowOf(tx, scope, id, true);
      const input = next(before);
      if (input.userName.toLowerCase() !== before.userName.toLowerCase()) await assertUserNameFree(tx, scope, input.userName, before.id);
      const [after] = await tx
        .update(scimUsers)
        .set({ userName: input.userName, externalId: input.externalId ?? null, active: input.active, resource: storedAttributes(input, COLUMNS), updatedAt: new Date() })
        .where(eq(scimUsers.id, before.id))
        .returning();
      const audit = (action: string, detail: Record<string, unknown>) =>
        recordAudit(tx, { workspaceId: scope.workspaceId, actor: { kind: "system" }, action, target: { type: "user", id: before.userId }, detail: { ...BY_IDENTITY_PROVIDER, userName: input.userName, ...detail } });
      if (input.userName !== before.userName || (input.externalId ?? null) !== before.externalId || JSON.stringify(after!.resource) !== JSON.stringify(before.resource)) {
        await audit("scim.user_updated", { from: before.userName !== input.userName ? before.userName : undefined });
      }
      if (before.active && !input.active) await audit("scim.user_deactivated", { ...(await endAccess(tx, scope.workspaceId, before.userId)) });
      if (!before.active && input.active) await audit("scim.user_reactivated", { ...(await restoreAccess(tx, scope.workspaceId, before.id, before.userId)) });
      return after!;
    }),
  );
  return toResource(row, await groupsOf(db, [row]), scope);
}

/** Deprovisions a person: deactivation, then the SCIM record goes; the account and its history stay. */
export async function deleteScimUser(db: Db, scope: ScimScope, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await rowOf(tx, scope, id, true);
    const ended = row.active ? await endAccess(tx, scope.workspaceId, row.userId) : null;
    await tx.delete(scimUsers).where(eq(scimUsers.id, row.id));
    await recordAudit(tx, {
      workspaceId: scope.workspaceId,
      actor: { kind: "system" },
      action: "scim.user_deleted",
      target: { type: "user", id: row.userId },
      detail: { ...BY_IDENTITY_PROVIDER, userName: row.userName, ...ended },
    });
  });
}

async function isMember(tx: Db, workspaceId: string, userId: string): Promise<boolean> {
  const [row] = await tx.select({ userId: memberships.userId }).from(memberships).where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  return row !== undefined;
}

/** Whether the email's domain is one of the workspace's own (`settings.sso.domains`). */
async function domainClaimed(tx: Db, workspaceId: string, email: string): Promise<boolean> {
  const [ws] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
  return ssoOf(ws?.settings).domains.some((d) => d.domain.toLowerCase() === domain);
}
