/**
 * Who a person signing in through an identity provider is here. The provider's (issuer, subject) pair names them for
 * good; an email is trusted only when the provider says it verified it. A first sign-in joins the workspaces that
 * invited that verified address and those that list its domain; nobody else gets an account.
 */
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { memberships, userIdentities, type Role } from "../db/schema";
import { recordAudit } from "../audit";
import { endSoloApproval, isDecidingRole } from "../safety/solo-approval";
import { acceptInvitationsForVerifiedEmail } from "../workspaces/invitations";
import { createUserWithoutPassword, emailSchema, getUserByEmail, getUserById, type PublicUser } from "../workspaces/users";
import { workspacesForDomain } from "./sso-settings";

/** The ID token's claims this uses (next-auth has already checked its issuer, audience, expiry and nonce). */
export const identityClaimsSchema = z.object({
  iss: z.string().min(1),
  sub: z.string().min(1).max(255),
  email: z.string().optional(),
  email_verified: z.unknown().optional(),
  /** Microsoft Entra ID's "email domain owner verified", sent instead of `email_verified` when added as an optional claim. */
  xms_edov: z.unknown().optional(),
  name: z.string().optional(),
});
export type IdentityClaims = z.infer<typeof identityClaimsSchema>;

/** Why a sign-in through a provider made no session; each has a sentence on the sign-in page. */
export type IdentityRefusal = "sso_unverified_email" | "sso_no_workspace";

export type IdentitySignIn = { user: PublicUser; joined: { workspaceId: string; role: Role; via: "invitation" | "domain" }[] } | { refused: IdentityRefusal };

/** The address the provider vouches for: `email_verified: true`, or Entra's `xms_edov: true` when it sends no `email_verified`. */
export function verifiedEmail(claims: IdentityClaims): string | null {
  const verified = claims.email_verified === true || (claims.email_verified === undefined && claims.xms_edov === true);
  const email = emailSchema.safeParse(claims.email ?? "");
  return verified && email.success ? email.data : null;
}

export async function signInWithIdentity(db: Db, provider: { name: string }, claims: IdentityClaims): Promise<IdentitySignIn> {
  return db.transaction(async (tx): Promise<IdentitySignIn> => {
    const [known] = await tx
      .select({ id: userIdentities.id, userId: userIdentities.userId })
      .from(userIdentities)
      .where(and(eq(userIdentities.issuer, claims.iss), eq(userIdentities.subject, claims.sub)))
      .limit(1);
    if (known) {
      // The same person even when their address changed at the provider: the pair names them, not the email.
      await tx.update(userIdentities).set({ email: claims.email ?? "", lastSignInAt: new Date() }).where(eq(userIdentities.id, known.id));
      return { user: (await getUserById(tx, known.userId))!, joined: [] };
    }
    const email = verifiedEmail(claims);
    if (!email) return { refused: "sso_unverified_email" as const };
    const existing = await getUserByEmail(tx, email);
    const domainJoins = await workspacesForDomain(tx, email.slice(email.lastIndexOf("@") + 1), existing?.id ?? null);
    const user = existing ? { id: existing.id, email: existing.email, name: existing.name } : await createUserWithoutPassword(tx, { email, name: personName(claims, email) });
    const invited = await acceptInvitationsForVerifiedEmail(tx, user, !existing);
    if (!existing && invited.length === 0 && domainJoins.length === 0) {
      // Nobody invited this address and no workspace lists its domain: the account just made is rolled back.
      throw new NoWorkspace();
    }
    const joined: { workspaceId: string; role: Role; via: "invitation" | "domain" }[] = invited.map((a) => ({ workspaceId: a.workspace.id, role: a.role, via: "invitation" }));
    for (const domain of domainJoins) {
      if (joined.some((j) => j.workspaceId === domain.id)) continue;
      const added = await tx.insert(memberships).values({ workspaceId: domain.id, userId: user.id, role: domain.role, lastOpenedAt: new Date() }).onConflictDoNothing().returning();
      if (added.length === 0) continue;
      if (isDecidingRole(domain.role)) await endSoloApproval(tx, domain.id, user.id);
      await recordAudit(tx, {
        workspaceId: domain.id,
        actor: { kind: "user", id: user.id },
        action: "member.joined_by_domain",
        target: { type: "user", id: user.id },
        detail: { email, role: domain.role, newAccount: !existing },
      });
      joined.push({ workspaceId: domain.id, role: domain.role, via: "domain" });
    }
    await tx.insert(userIdentities).values({ userId: user.id, provider: provider.name, issuer: claims.iss, subject: claims.sub, email, lastSignInAt: new Date() });
    if (existing) {
      for (const m of await tx.select({ workspaceId: memberships.workspaceId }).from(memberships).where(eq(memberships.userId, user.id))) {
        await recordAudit(tx, {
          workspaceId: m.workspaceId,
          actor: { kind: "user", id: user.id },
          action: "auth.identity_linked",
          target: { type: "user", id: user.id },
          detail: { provider: provider.name, issuer: claims.iss, email },
        });
      }
    }
    return { user, joined };
  }).catch((error: unknown) => {
    if (error instanceof NoWorkspace) return { refused: "sso_no_workspace" as const };
    throw error;
  });
}

/** Thrown inside the transaction so that the account it made is rolled back. */
class NoWorkspace extends Error {}

function personName(claims: IdentityClaims, email: string): string {
  const name = claims.name?.trim().slice(0, 100);
  return name || email.slice(0, email.indexOf("@"));
}
