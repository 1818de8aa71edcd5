/**
 * A workspace's single sign-on rules (`settings.sso`): whether its people must sign in through the identity provider,
 * and the email domains whose verified people join it at their first sign-in, with the role the workspace chose.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { memberships, userIdentities, workspaces, type Role, type WorkspaceSettings } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { domainRoleSchema, type SsoBody, type SsoState } from "./sso-schemas";

type Provider = { name: string; id: string; label: string };

export function ssoOf(settings: WorkspaceSettings | undefined): SsoBody {
  const domains = (settings?.sso?.domains ?? []).filter((d): d is SsoBody["domains"][number] => domainRoleSchema.safeParse(d.role).success);
  return { required: settings?.sso?.required === true, domains };
}

/** Whether the person has an identity at one of the configured providers. */
async function hasLinkedIdentity(db: Db, userId: string, providers: Provider[]): Promise<boolean> {
  if (providers.length === 0) return false;
  const [row] = await db
    .select({ id: userIdentities.id })
    .from(userIdentities)
    .where(and(eq(userIdentities.userId, userId), inArray(userIdentities.provider, providers.map((p) => p.name))))
    .limit(1);
  return row !== undefined;
}

export async function readSso(db: Db, workspaceId: string, userId: string, providers: Provider[]): Promise<SsoState> {
  const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return { ...ssoOf(ws?.settings), providers: providers.map(({ id, label }) => ({ id, label })), linked: await hasLinkedIdentity(db, userId, providers) };
}

/**
 * Saves the workspace's rules (audited with before and after). Requiring SSO is refused while the server offers no
 * provider, or while the owner making the change has never signed in through one: nobody locks themselves out.
 */
export async function setSso(db: Db, workspaceId: string, actorId: string, body: SsoBody, providers: Provider[]): Promise<SsoState> {
  if (body.required && providers.length === 0) {
    throw new AppError("unprocessable:sso_no_provider", "This server has no identity provider configured, so single sign-on cannot be required.");
  }
  if (body.required && !(await hasLinkedIdentity(db, actorId, providers))) {
    throw new AppError("unprocessable:sso_not_linked", "Sign in once through your identity provider before requiring it, so that you cannot lock yourself out.");
  }
  await db.transaction(async (tx) => {
    const [ws] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
    if (!ws) throw new AppError("not_found:workspace");
    const before = ssoOf(ws.settings);
    if (JSON.stringify(before) === JSON.stringify(body)) return;
    await tx.update(workspaces).set({ settings: { ...ws.settings, sso: body } }).where(eq(workspaces.id, workspaceId));
    await recordAudit(tx, { workspaceId, actor: { kind: "user", id: actorId }, action: "workspace.sso_changed", target: { type: "workspace", id: workspaceId }, detail: { before, after: body } });
  });
  return readSso(db, workspaceId, actorId, providers);
}

/** Workspaces that list the domain, with the role they give; the person's own workspaces left out. */
export async function workspacesForDomain(db: Db, domain: string, userId: string | null): Promise<{ id: string; role: Role }[]> {
  const rows = await db
    .select({ id: workspaces.id, settings: workspaces.settings })
    .from(workspaces)
    .where(
      and(
        sql`${workspaces.settings} -> 'sso' -> 'domains' @> ${JSON.stringify([{ domain }])}::jsonb`,
        userId ? sql`not exists (select 1 from ${memberships} m where m.workspace_id = ${workspaces.id} and m.user_id = ${userId})` : undefined,
      ),
    );
  return rows.flatMap((row) => ssoOf(row.settings).domains.filter((d) => d.domain === domain).map((d) => ({ id: row.id, role: d.role })));
}

/**
 * What a correct password gets a person: a session, unless a workspace they belong to requires SSO. An owner of every
 * such workspace keeps a break-glass password (allowed, audited in those workspaces). A person who is not an owner of
 * one of them is refused outright: a session opens every workspace its person belongs to, so a password session would
 * open the one that requires SSO too.
 */
export async function passwordSignInRule(db: Db, userId: string): Promise<{ allowed: true } | { breakGlass: string[] } | { refused: true }> {
  const rows = await db
    .select({ workspaceId: memberships.workspaceId, role: memberships.role, settings: workspaces.settings })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, userId));
  const requiring = rows.filter((r) => ssoOf(r.settings).required);
  if (requiring.length === 0) return { allowed: true };
  if (requiring.some((r) => r.role !== "owner")) return { refused: true };
  return { breakGlass: requiring.map((r) => r.workspaceId) };
}
