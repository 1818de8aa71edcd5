import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll } from "vitest";
import type { Db } from "../../lib/db/client";
import { auditLog, authSessions, memberships, userIdentities, users, workspaces } from "../../lib/db/schema";
import { startTestIdp, type TestIdp } from "./oidc-provider";
import { APP_ORIGIN, useTestServer } from "./server";

export const PROVIDER = "oidc-test";

/**
 * A test server with one identity provider configured (`CLAWDECK_OIDC_TEST_…`, shown as "Test SSO"), and a second
 * provider that signs tokens for the same client id without being configured (the forger in the wrong-issuer test).
 */
export function useSsoServer() {
  const env: Record<string, string> = {};
  const idps: { idp?: TestIdp; other?: TestIdp } = {};
  beforeAll(async () => {
    const redirectUris = [`${APP_ORIGIN}/api/auth/callback/${PROVIDER}`];
    idps.idp = await startTestIdp({ redirectUris });
    idps.other = await startTestIdp({ redirectUris, clientId: idps.idp.clientId, clientSecret: idps.idp.clientSecret });
    Object.assign(env, {
      CLAWDECK_OIDC_TEST_ISSUER: idps.idp.issuer,
      CLAWDECK_OIDC_TEST_CLIENT_ID: idps.idp.clientId,
      CLAWDECK_OIDC_TEST_CLIENT_SECRET: idps.idp.clientSecret,
      CLAWDECK_OIDC_TEST_LABEL: "Test SSO",
    });
  });
  // Registered after the provider's start, so it runs after it (and its server is stopped before the providers).
  const server = useTestServer({ env });
  afterAll(async () => {
    await idps.idp?.close();
    await idps.other?.close();
  });
  return { server, idp: () => idps.idp!, other: () => idps.other! };
}

/** A fresh address, so each test's people are its own. */
export function address(domain = "acme.test"): string {
  return `p-${crypto.randomBytes(4).toString("hex")}@${domain}`;
}

export const subject = () => `sub-${crypto.randomBytes(6).toString("hex")}`;

export async function sessionsOf(db: Db, userId: string) {
  return db.select().from(authSessions).where(eq(authSessions.userId, userId));
}

export async function countSessions(db: Db): Promise<number> {
  return (await db.select({ id: authSessions.id }).from(authSessions)).length;
}

export async function userByEmail(db: Db, email: string) {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  return row;
}

export async function identitiesOf(db: Db, sub: string) {
  return db.select().from(userIdentities).where(eq(userIdentities.subject, sub));
}

export async function roleIn(db: Db, workspaceId: string, userId: string) {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  return row?.role ?? null;
}

export async function auditActions(db: Db, workspaceId: string): Promise<string[]> {
  return (await db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.workspaceId, workspaceId))).map((r) => r.action);
}

export async function setWorkspaceSso(db: Db, workspaceId: string, sso: { required?: boolean; domains?: { domain: string; role: "manager" | "reviewer" | "member" }[] }) {
  const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  await db.update(workspaces).set({ settings: { ...ws!.settings, sso } }).where(eq(workspaces.id, workspaceId));
}
