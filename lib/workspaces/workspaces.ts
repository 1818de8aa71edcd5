import crypto from "node:crypto";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { memberships, workspaces, type Role } from "../db/schema";
import { AppError, PG_UNIQUE_VIOLATION, pgErrorCode } from "../errors";
import { recordAudit } from "../audit";
import { DEFAULT_TIME_ZONE, isKnownTimeZone } from "./time-zone";

export interface WorkspaceMembership {
  id: string;
  slug: string;
  name: string;
  role: Role;
}

export const workspaceNameSchema = z.string().trim().min(1, "Enter a name").max(80);

export async function listWorkspacesForUser(db: Db, userId: string): Promise<WorkspaceMembership[]> {
  return db
    .select({ id: workspaces.id, slug: workspaces.slug, name: workspaces.name, role: memberships.role })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(workspaces.name));
}

/**
 * The workspace a person lands in when none is named: the one they opened
 * last; never-opened ones after, oldest membership first. Being added
 * somewhere never changes it; opening a workspace does.
 */
export async function defaultWorkspaceForUser(db: Db, userId: string): Promise<WorkspaceMembership | undefined> {
  const [row] = await db
    .select({ id: workspaces.id, slug: workspaces.slug, name: workspaces.name, role: memberships.role })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, userId))
    .orderBy(sql`${memberships.lastOpenedAt} desc nulls last`, asc(memberships.createdAt), desc(workspaces.id))
    .limit(1);
  return row;
}

/**
 * Records that the person opened this workspace. Writes only when it is not
 * already their most recent one, so repeated requests in one workspace cost
 * a read, not a write.
 */
export async function markWorkspaceOpened(db: Db, userId: string, workspaceId: string): Promise<void> {
  await db.execute(sql`
    update ${memberships} set last_opened_at = now()
    where workspace_id = ${workspaceId} and user_id = ${userId}
      and (last_opened_at is null or exists (
        select 1 from ${memberships} other
        where other.user_id = ${userId} and other.workspace_id <> ${workspaceId}
          and other.last_opened_at >= ${memberships}.last_opened_at))`);
}

/** The user's membership in a workspace named by id or slug, or undefined when they are not a member. */
export async function getWorkspaceMembership(
  db: Db,
  userId: string,
  workspace: { id?: string; slug?: string },
): Promise<WorkspaceMembership | undefined> {
  const match = workspace.id
    ? z.uuid().safeParse(workspace.id).success
      ? eq(workspaces.id, workspace.id)
      : undefined
    : workspace.slug
      ? eq(workspaces.slug, workspace.slug)
      : undefined;
  if (!match) return undefined;
  const [row] = await db
    .select({ id: workspaces.id, slug: workspaces.slug, name: workspaces.name, role: memberships.role })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(and(eq(memberships.userId, userId), match))
    .limit(1);
  return row;
}

export function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return base || "workspace";
}

/** Creates a workspace with its creator as owner; the slug gets a suffix if the name is taken. */
export async function createWorkspace(
  db: Db,
  input: { name: string; ownerId: string; slug?: string; timeZone?: string },
): Promise<WorkspaceMembership> {
  // The creator's browser zone when this server knows it, else UTC; changed later in Settings → Workspace.
  const timeZone = input.timeZone && isKnownTimeZone(input.timeZone) ? input.timeZone : DEFAULT_TIME_ZONE;
  const base = input.slug ?? slugify(input.name);
  for (let attempt = 0; attempt < 5; attempt++) {
    const slug = attempt === 0 ? base : `${base}-${crypto.randomBytes(3).toString("hex")}`;
    try {
      return await db.transaction(async (tx) => {
        const [ws] = await tx.insert(workspaces).values({ name: input.name.trim(), slug, timeZone }).returning();
        await tx.insert(memberships).values({ workspaceId: ws!.id, userId: input.ownerId, role: "owner" });
        await recordAudit(tx, {
          workspaceId: ws!.id,
          actor: { kind: "user", id: input.ownerId },
          action: "workspace.created",
          target: { type: "workspace", id: ws!.id },
          detail: { name: ws!.name, slug },
        });
        return { id: ws!.id, slug: ws!.slug, name: ws!.name, role: "owner" as const };
      });
    } catch (error) {
      if (pgErrorCode(error) !== PG_UNIQUE_VIOLATION) throw error;
    }
  }
  throw new AppError("conflict:workspace", "Could not find a free address for this workspace name.");
}

/** A new name for a workspace; its slug (its address) never changes with it. */
export const workspaceRenameSchema = z.object({ name: workspaceNameSchema });

/** Renames a workspace, audited with the name before and after; the same name again changes nothing. */
export async function renameWorkspace(db: Db, workspaceId: string, actorId: string, name: string): Promise<string> {
  return db.transaction(async (tx) => {
    const [before] = await tx.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
    if (!before) throw new AppError("not_found:workspace");
    if (before.name === name) return name;
    await tx.update(workspaces).set({ name, updatedAt: new Date() }).where(eq(workspaces.id, workspaceId));
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actorId },
      action: "workspace.renamed",
      target: { type: "workspace", id: workspaceId },
      detail: { from: before.name, to: name },
    });
    return name;
  });
}
