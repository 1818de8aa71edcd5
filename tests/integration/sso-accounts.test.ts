import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { authSessions, invitations } from "../../lib/db/schema";
import { NO_PASSWORD } from "../../lib/workspaces/users";
import { createInvitation } from "../../lib/workspaces/invitations";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { jsonRequest } from "../support/server";
import { callApp, signInError, signInThroughProvider } from "../support/sso";
import { GET as agentsRoute } from "../../app/api/agents/route";
import { address, auditActions, identitiesOf, PROVIDER, roleIn, sessionsOf, setWorkspaceSso, subject, userByEmail, useSsoServer } from "../support/sso-server";

describe("signing in through an identity provider: who joins where", () => {
  const { server, idp } = useSsoServer();

  it("a first sign-in with an invitation to the verified email makes a person without a password, in the invitation's role", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Invited", owner);
    const email = address();
    await createInvitation(s.db, ws.id, { userId: owner.id, role: "owner" }, { email, role: "reviewer" });
    idp().signInAs({ sub: subject(), email, email_verified: true, name: "Ines Invited" });

    const landing = await signInThroughProvider(PROVIDER);
    expect(signInError(landing)).toBeNull();
    expect(landing.session).toBeDefined();
    const person = await userByEmail(s.db, email);
    expect(person).toMatchObject({ name: "Ines Invited", passwordHash: NO_PASSWORD });
    expect(await roleIn(s.db, ws.id, person!.id)).toBe("reviewer");
    const [invitation] = await s.db.select().from(invitations).where(eq(invitations.workspaceId, ws.id));
    expect(invitation).toMatchObject({ acceptedBy: person!.id });
    // The session is a server-side one, as after a password, and marked as made by single sign-on.
    expect(await sessionsOf(s.db, person!.id)).toEqual([expect.objectContaining({ method: "sso", revokedAt: null })]);
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie: landing.session, workspace: ws.slug }))).status).toBe(200);
    expect(await auditActions(s.db, ws.id)).toEqual(expect.arrayContaining(["invitation.accepted", "auth.sso_signed_in"]));
  });

  it("a verified address at a domain the workspace lists joins it with the role the workspace chose", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "By Domain", owner);
    await setWorkspaceSso(s.db, ws.id, { domains: [{ domain: "domain-join.test", role: "manager" }] });
    const email = address("domain-join.test");
    idp().signInAs({ sub: subject(), email, email_verified: true });

    const landing = await signInThroughProvider(PROVIDER);
    expect(landing.session).toBeDefined();
    const person = await userByEmail(s.db, email);
    expect(person!.name).toBe(email.slice(0, email.indexOf("@")));
    expect(await roleIn(s.db, ws.id, person!.id)).toBe("manager");
    expect(await auditActions(s.db, ws.id)).toEqual(expect.arrayContaining(["member.joined_by_domain", "auth.sso_signed_in"]));
  });

  it("an unverified email is refused: no account, not linked to the person who has that address, no domain join", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Unverified", owner);
    await setWorkspaceSso(s.db, ws.id, { domains: [{ domain: "unverified.test", role: "member" }] });
    for (const claims of [{ email: owner.email, email_verified: false }, { email: owner.email }, { email: address("unverified.test"), email_verified: "true" }]) {
      const sub = subject();
      idp().signInAs({ sub, ...claims });
      const landing = await signInThroughProvider(PROVIDER);
      expect(signInError(landing)).toBe("sso_unverified_email");
      expect(landing.session).toBeUndefined();
      expect(await identitiesOf(s.db, sub)).toEqual([]);
    }
    expect(await sessionsOf(s.db, owner.id)).toEqual([]);
    expect(await userByEmail(s.db, address("unverified.test"))).toBeUndefined();
  });

  it("a verified address nobody invited gets no account", async () => {
    const s = server();
    const email = address("nobody-asked.test");
    idp().signInAs({ sub: subject(), email, email_verified: true });
    const landing = await signInThroughProvider(PROVIDER);
    expect(signInError(landing)).toBe("sso_no_workspace");
    expect(landing.session).toBeUndefined();
    expect(await userByEmail(s.db, email)).toBeUndefined();
  });

  it("a person with a password and a verified address is linked, audited, and keeps their account", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Linked", owner);
    const sub = subject();
    idp().signInAs({ sub, email: owner.email.toUpperCase(), email_verified: true });
    const landing = await signInThroughProvider(PROVIDER);
    expect(landing.session).toBeDefined();
    expect(await identitiesOf(s.db, sub)).toEqual([expect.objectContaining({ userId: owner.id, provider: "test", issuer: idp().issuer })]);
    expect(await auditActions(s.db, ws.id)).toEqual(expect.arrayContaining(["auth.identity_linked", "auth.sso_signed_in"]));
  });

  it("Entra's xms_edov stands for email_verified when the token has none", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Entra", owner);
    const email = address();
    await createInvitation(s.db, ws.id, { userId: owner.id, role: "owner" }, { email, role: "member" });
    idp().signInAs({ sub: subject(), email, xms_edov: true });
    expect((await signInThroughProvider(PROVIDER)).session).toBeDefined();
    expect(await roleIn(s.db, ws.id, (await userByEmail(s.db, email))!.id)).toBe("member");
    // But not against an explicit "not verified".
    idp().signInAs({ sub: subject(), email: owner.email, email_verified: false, xms_edov: true });
    expect(signInError(await signInThroughProvider(PROVIDER))).toBe("sso_unverified_email");
  });

  it("a returning person is found by their subject, even after their address changed and is no longer verified", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    await makeWorkspace(s.db, "Returning", owner);
    const sub = subject();
    idp().signInAs({ sub, email: owner.email, email_verified: true });
    await signInThroughProvider(PROVIDER);
    const moved = address("moved.test");
    idp().signInAs({ sub, email: moved, email_verified: false });
    const again = await signInThroughProvider(PROVIDER);
    expect(again.session).toBeDefined();
    expect(await identitiesOf(s.db, sub)).toEqual([expect.objectContaining({ userId: owner.id, email: moved })]);
    expect((await sessionsOf(s.db, owner.id)).filter((r) => r.method === "sso")).toHaveLength(2);
    expect(await userByEmail(s.db, moved)).toBeUndefined();
  });

  it("signing out ends the server-side session without a word to the provider", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Sign Out", owner);
    idp().signInAs({ sub: subject(), email: owner.email, email_verified: true });
    const landing = await signInThroughProvider(PROVIDER);
    const before = idp().requests();
    const { csrfToken } = (await (await callApp(landing.jar, "http://localhost:3000/api/auth/csrf")).json()) as { csrfToken: string };
    const out = await callApp(landing.jar, "http://localhost:3000/api/auth/signout", { method: "POST", form: { csrfToken, callbackUrl: "/" } });
    expect(out.status).toBe(302);
    expect(idp().requests()).toBe(before);
    const [row] = await s.db.select().from(authSessions).where(and(eq(authSessions.userId, owner.id), eq(authSessions.method, "sso")));
    expect(row).toMatchObject({ revokedReason: "sign_out" });
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie: landing.session, workspace: ws.slug }))).status).toBe(401);
  });
});
