import crypto from "node:crypto";
import { and, asc, desc, eq, gt, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Database, Db } from "../db/client";
import { invitations, memberships, users, workspaces, type Role } from "../db/schema";
import { AppError, PG_UNIQUE_VIOLATION, pgErrorCode } from "../errors";
import { recordAudit } from "../audit";
import { endSoloApproval, isDecidingRole } from "../safety/solo-approval";
import { consumeLimit, limiterFor } from "../limits";
import { assertCanManage, canGrant, type Actor } from "./members";
import { roleSchema } from "./roles";
import { createUser, emailSchema, getUserByEmail, passwordSchema, personNameSchema, type PublicUser } from "./users";

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const createInvitationSchema = z.object({
  email: emailSchema,
  role: roleSchema,
  /** The address has a pending invitation: replace it with this one (a new link; the old one stops working). */
  replace: z.boolean().optional(),
});
export type CreateInvitationInput = z.infer<typeof createInvitationSchema>;

export const invitationTokenSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{32,128}$/, "Not an invitation token");

/** A new person: the token, their name and the password they choose. */
export const acceptAsNewAccountSchema = z.object({ token: invitationTokenSchema, name: personNameSchema, password: passwordSchema });
/** A signed-in person: the token alone. */
export const acceptAsSignedInSchema = z.object({ token: invitationTokenSchema });

export interface PendingInvitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** What the accept page may show to whoever holds the link. */
export interface InvitationPreview {
  workspaceName: string;
  /** Who made the invitation (null when that account is gone). */
  invitedBy: string | null;
  email: string;
  role: Role;
  expiresAt: Date;
}

export interface AcceptedInvitation {
  workspace: { id: string; slug: string; name: string };
  role: Role;
  user: PublicUser;
}

/** One answer for every token that cannot be used, so the answer never tells which case it was. */
export function invalidInvitation(): AppError {
  return new AppError(
    "not_found:invitation",
    "This invitation link cannot be used. It may have expired, been revoked or been used already: ask for a new one.",
  );
}

export function hashInvitationToken(token: string): string {
  return crypto.createHash("sha256").update(token, "utf8").digest("hex");
}

function newToken(): string {
  return crypto.randomBytes(32).toString("base64url");
}

const pending = (now = new Date()) => and(isNull(invitations.acceptedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now));

/** Counts one invitation for its inviter, or throws `rate_limited:invitations` with the seconds to wait. */
export async function limitInvitations(db: Database, userId: string, perHour: number): Promise<void> {
  await consumeLimit(
    limiterFor(db, { prefix: "invitations", points: perHour, windowSeconds: 3600 }),
    userId,
    (retryAfterSeconds) =>
      new AppError("rate_limited:invitations", `You created ${perHour} invitations in the last hour, the most allowed. Try again in ${retryAfterSeconds} s.`, {
        details: { retryAfterSeconds },
      }),
  );
}

/**
 * Invites an email address into the workspace. No account is looked up: the
 * answer is the same whether the address has an account or not, and nobody
 * is added until someone accepts with the token. The token is returned once.
 */
export async function createInvitation(
  db: Db,
  workspaceId: string,
  actor: Actor,
  input: CreateInvitationInput,
  options: { now?: Date } = {},
): Promise<{ invitation: PendingInvitation; token: string }> {
  assertCanManage(actor, input.role);
  const now = options.now ?? new Date();
  const token = newToken();
  return db.transaction(async (tx) => {
    // One pending invitation per address: a second is refused with what is waiting, unless it is to replace it. Two
    // requests for one address take turns (a row lock cannot hold an address that has no row yet).
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`invitation:${workspaceId}:${input.email}`}, 0))`);
    const waiting = await tx
      .select({ id: invitations.id, role: invitations.role, expiresAt: invitations.expiresAt, invitedBy: users.name })
      .from(invitations)
      .leftJoin(users, eq(users.id, invitations.invitedBy))
      .where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.email, input.email), pending(now)))
      .orderBy(desc(invitations.createdAt));
    const latest = waiting[0];
    if (latest && !input.replace) {
      throw new AppError(
        "conflict:invitation",
        `${input.email} already has a pending invitation as ${latest.role}${latest.invitedBy ? `, made by ${latest.invitedBy}` : ""}. Make a new link to replace it: the old link stops working.`,
        { details: { invitationId: latest.id, role: latest.role, roles: [...new Set(waiting.map((w) => w.role))], expiresAt: latest.expiresAt.toISOString() } },
      );
    }
    // Replacing revokes every pending invitation of the address, each one only by someone who may grant its role.
    for (const w of waiting) assertCanManage(actor, w.role);
    for (const w of waiting) {
      await tx.update(invitations).set({ revokedAt: now }).where(eq(invitations.id, w.id));
      await recordAudit(tx, {
        workspaceId,
        actor: { kind: "user", id: actor.userId },
        action: "invitation.revoked",
        target: { type: "invitation", id: w.id },
        detail: { email: input.email, role: w.role, replaced: true },
      });
    }
    const [row] = await tx
      .insert(invitations)
      .values({
        workspaceId,
        email: input.email,
        role: input.role,
        tokenHash: hashInvitationToken(token),
        invitedBy: actor.userId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      })
      .returning();
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actor.userId },
      action: "invitation.created",
      target: { type: "invitation", id: row!.id },
      detail: { email: input.email, role: input.role, expiresAt: row!.expiresAt.toISOString() },
    });
    return { invitation: toPending(row!, null), token };
  });
}

function toPending(row: typeof invitations.$inferSelect, invitedBy: string | null): PendingInvitation {
  return { id: row.id, email: row.email, role: row.role, invitedBy, createdAt: row.createdAt, expiresAt: row.expiresAt };
}

/** Invitations of the workspace still waiting for an answer (never their tokens). */
export async function listPendingInvitations(db: Db, workspaceId: string): Promise<PendingInvitation[]> {
  return db
    .select({
      id: invitations.id,
      email: invitations.email,
      role: invitations.role,
      invitedBy: users.name,
      createdAt: invitations.createdAt,
      expiresAt: invitations.expiresAt,
    })
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(and(eq(invitations.workspaceId, workspaceId), pending()))
    .orderBy(asc(invitations.createdAt));
}

/** Revokes a pending invitation of this workspace; any other id is not found. */
export async function revokeInvitation(db: Db, workspaceId: string, actor: Actor, invitationId: string): Promise<void> {
  if (!z.uuid().safeParse(invitationId).success) throw new AppError("not_found:invitation");
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(invitations)
      .where(and(eq(invitations.id, invitationId), eq(invitations.workspaceId, workspaceId), pending()))
      .limit(1)
      .for("update");
    if (!row) throw new AppError("not_found:invitation");
    assertCanManage(actor, row.role);
    await tx.update(invitations).set({ revokedAt: new Date() }).where(eq(invitations.id, row.id));
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actor.userId },
      action: "invitation.revoked",
      target: { type: "invitation", id: row.id },
      detail: { email: row.email, role: row.role },
    });
  });
}

/** What the accept page shows for a usable token; any other token gets the one invalid answer. */
export async function previewInvitation(db: Db, token: string): Promise<InvitationPreview> {
  const parsed = invitationTokenSchema.safeParse(token);
  if (!parsed.success) throw invalidInvitation();
  const [row] = await db
    .select({ workspaceName: workspaces.name, invitedBy: users.name, email: invitations.email, role: invitations.role, expiresAt: invitations.expiresAt })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(and(eq(invitations.tokenHash, hashInvitationToken(parsed.data)), pending()))
    .limit(1);
  if (!row) throw invalidInvitation();
  return row;
}

/**
 * Marks the invitation used, atomically: of two people racing with one
 * token, one wins. Runs inside the caller's transaction, so a later failure
 * gives the invitation back.
 */
async function claim(tx: Db, token: string, userId: string | null) {
  const [row] = await tx
    .update(invitations)
    .set({ acceptedAt: new Date(), acceptedBy: userId })
    .where(and(eq(invitations.tokenHash, hashInvitationToken(token)), pending()))
    .returning();
  if (!row) throw invalidInvitation();
  // The maker's authority as it is now: removed, or no longer allowed to grant the role, the invitation is worth nothing.
  const [maker] = row.invitedBy
    ? await tx
        .select({ role: memberships.role })
        .from(memberships)
        .where(and(eq(memberships.workspaceId, row.workspaceId), eq(memberships.userId, row.invitedBy)))
        .limit(1)
    : [];
  if (!canGrant(maker?.role ?? null, row.role)) throw invalidInvitation();
  const [ws] = await tx
    .select({ id: workspaces.id, slug: workspaces.slug, name: workspaces.name })
    .from(workspaces)
    .where(eq(workspaces.id, row.workspaceId))
    .limit(1);
  if (!ws) throw invalidInvitation();
  return { invitation: row, workspace: ws };
}

async function join(tx: Db, claimed: Awaited<ReturnType<typeof claim>>, user: PublicUser, newAccount: boolean): Promise<AcceptedInvitation> {
  const { invitation, workspace } = claimed;
  const inserted = await tx
    .insert(memberships)
    .values({ workspaceId: workspace.id, userId: user.id, role: invitation.role, lastOpenedAt: new Date() })
    .onConflictDoNothing()
    .returning();
  if (inserted.length === 0) throw new AppError("conflict:member", `You are already a member of ${workspace.name}.`);
  // A second person who may decide: the owner no longer approves their own requests.
  if (isDecidingRole(invitation.role)) await endSoloApproval(tx, workspace.id, user.id);
  await recordAudit(tx, {
    workspaceId: workspace.id,
    actor: { kind: "user", id: user.id },
    action: "invitation.accepted",
    target: { type: "invitation", id: invitation.id },
    detail: { invitedEmail: invitation.email, accountEmail: user.email, role: invitation.role, newAccount },
  });
  return { workspace, role: invitation.role, user };
}

/**
 * A new person accepts: the account is created with the invitation's email
 * and the password they choose here. An address that already has an account
 * is never joined this way (the invitation would be granted by email): that
 * person signs in first and accepts from their session.
 */
export async function acceptInvitationAsNewAccount(
  db: Db,
  input: z.infer<typeof acceptAsNewAccountSchema>,
): Promise<AcceptedInvitation> {
  try {
    return await db.transaction(async (tx) => {
      const claimed = await claim(tx, input.token, null);
      if (await getUserByEmail(tx, claimed.invitation.email)) throw accountExists();
      const user = await createUser(tx, { email: claimed.invitation.email, name: input.name, password: input.password });
      await tx.update(invitations).set({ acceptedBy: user.id }).where(eq(invitations.id, claimed.invitation.id));
      return join(tx, claimed, user, true);
    });
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw accountExists();
    throw error;
  }
}

function accountExists(): AppError {
  return new AppError("conflict:account", "This email already has an account. Sign in with it, then open this link again to join.");
}

/**
 * Single sign-on: a person whose identity provider verified their email accepts every pending invitation to that
 * address (no token: the provider vouched for the address the invitation was sent to). An invitation whose maker may
 * no longer grant its role, or to a workspace the person is already in, is left as it is. Runs in the caller's
 * transaction.
 */
export async function acceptInvitationsForVerifiedEmail(tx: Db, user: PublicUser, newAccount: boolean): Promise<AcceptedInvitation[]> {
  const waiting = await tx
    .select({ invitation: invitations, workspace: { id: workspaces.id, slug: workspaces.slug, name: workspaces.name }, makerRole: memberships.role })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .leftJoin(memberships, and(eq(memberships.workspaceId, invitations.workspaceId), eq(memberships.userId, invitations.invitedBy)))
    .where(and(eq(invitations.email, user.email.toLowerCase()), pending()))
    .orderBy(asc(invitations.createdAt));
  const accepted: AcceptedInvitation[] = [];
  for (const { invitation, workspace, makerRole } of waiting) {
    if (!canGrant(makerRole, invitation.role) || accepted.some((a) => a.workspace.id === workspace.id)) continue;
    const [member] = await tx
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.workspaceId, workspace.id), eq(memberships.userId, user.id)))
      .limit(1);
    if (member) continue;
    const [claimed] = await tx
      .update(invitations)
      .set({ acceptedAt: new Date(), acceptedBy: user.id })
      .where(and(eq(invitations.id, invitation.id), pending()))
      .returning();
    if (claimed) accepted.push(await join(tx, { invitation: claimed, workspace }, user, newAccount));
  }
  return accepted;
}

/** A signed-in person accepts: the invitation joins that account, whatever its email. */
export async function acceptInvitationAsUser(db: Db, user: PublicUser, token: string): Promise<AcceptedInvitation> {
  return db.transaction(async (tx) => join(tx, await claim(tx, token, user.id), user, false));
}
