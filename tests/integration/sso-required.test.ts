import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as ssoGet, PUT as ssoPut } from "../../app/api/workspace/sso/route";
import { auditLog, memberships } from "../../lib/db/schema";
import { checkSignIn } from "../../lib/http/auth";
import { setSso } from "../../lib/auth/sso-settings";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { jsonRequest, sessionCookie } from "../support/server";
import { callApp, CookieJar, signInThroughProvider } from "../support/sso";
import { auditActions, PROVIDER, sessionsOf, setWorkspaceSso, subject, useSsoServer } from "../support/sso-server";

const AUTH = "http://localhost:3000/api/auth";

/** The password form through next-auth's own route, as the browser posts it. */
async function passwordSignIn(email: string, password = "password-123") {
  const jar = new CookieJar();
  const { csrfToken } = (await (await callApp(jar, `${AUTH}/csrf`)).json()) as { csrfToken: string };
  const res = await callApp(jar, `${AUTH}/callback/credentials`, { method: "POST", form: { csrfToken, email, password, callbackUrl: "/" } });
  return { location: res.headers.get("location")!, signedIn: jar.header(AUTH).includes("authjs.session-token=") };
}

describe("a workspace that requires single sign-on", () => {
  const { server, idp } = useSsoServer();

  it("refuses a member's password (the sign-in page names the provider), while the provider still signs them in", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Required", owner);
    const member = await makeUser(s.db, ws.id, "member");
    await setWorkspaceSso(s.db, ws.id, { required: true });

    expect(await checkSignIn(member.email, "password-123", new Headers())).toEqual({ ssoRequired: "Test SSO" });
    const refused = await passwordSignIn(member.email);
    expect(refused.signedIn).toBe(false);
    expect(new URL(refused.location).searchParams.get("code")).toBe("sso_required");
    // A wrong password is still just a wrong password: the answer tells a stranger nothing about SSO.
    expect(await checkSignIn(member.email, "not-the-password", new Headers())).toEqual({ wrong: true });
    expect(await sessionsOf(s.db, member.id)).toEqual([]);

    idp().signInAs({ sub: subject(), email: member.email, email_verified: true });
    expect((await signInThroughProvider(PROVIDER)).session).toBeDefined();
  });

  it("lets an owner in with a password (break-glass): audited in the workspace, and the session says so", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Break Glass", owner);
    await setWorkspaceSso(s.db, ws.id, { required: true });
    const landing = await passwordSignIn(owner.email);
    expect(landing.signedIn).toBe(true);
    expect(await sessionsOf(s.db, owner.id)).toEqual([expect.objectContaining({ method: "break_glass" })]);
    const entries = await s.db.select().from(auditLog).where(eq(auditLog.workspaceId, ws.id));
    expect(entries.find((e) => e.action === "auth.break_glass")).toMatchObject({ actorId: owner.id, targetId: owner.id });
  });

  it("a person in two workspaces, one of which requires SSO, signs in through SSO for both; an owner of the one keeps break-glass", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const requiring = await makeWorkspace(s.db, "Requiring", owner);
    const open = await makeWorkspace(s.db, "Open", await makeUser(s.db));
    await setWorkspaceSso(s.db, requiring.id, { required: true });
    const both = await makeUser(s.db, open.id, "owner");
    await s.db.insert(memberships).values({ workspaceId: requiring.id, userId: both.id, role: "reviewer" });
    expect(await checkSignIn(both.email, "password-123", new Headers())).toEqual({ ssoRequired: "Test SSO" });

    // The owner of the requiring workspace, also a member elsewhere: break-glass, audited only where SSO is required.
    await s.db.insert(memberships).values({ workspaceId: open.id, userId: owner.id, role: "member" });
    expect(await checkSignIn(owner.email, "password-123", new Headers())).toMatchObject({ method: "break_glass" });
    expect(await auditActions(s.db, requiring.id)).toContain("auth.break_glass");
    expect(await auditActions(s.db, open.id)).not.toContain("auth.break_glass");
  });

  it("only owners change it; requiring it needs a configured provider the owner has signed in through", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Settings", owner);
    const manager = await makeUser(s.db, ws.id, "manager");
    const put = async (who: typeof owner, body: unknown) =>
      ssoPut(jsonRequest("/api/workspace/sso", { method: "PUT", cookie: await sessionCookie(s, who), workspace: ws.slug, body }));
    const body = { required: true, domains: [{ domain: "Acme.Example", role: "reviewer" }] };

    expect((await put(manager, body)).status).toBe(403);
    const notLinked = await put(owner, body);
    expect(notLinked.status).toBe(422);
    expect((await notLinked.json()).code).toBe("unprocessable:sso_not_linked");
    await expect(setSso(s.db, ws.id, owner.id, { required: true, domains: [] }, [])).rejects.toMatchObject({ code: "unprocessable:sso_no_provider" });
    const ownerRole = await put(owner, { required: false, domains: [{ domain: "acme.example", role: "owner" }] });
    expect(ownerRole.status).toBe(400);

    idp().signInAs({ sub: subject(), email: owner.email, email_verified: true });
    await signInThroughProvider(PROVIDER);
    const saved = await put(owner, body);
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({
      required: true,
      domains: [{ domain: "acme.example", role: "reviewer" }],
      providers: [{ id: PROVIDER, label: "Test SSO" }],
      linked: true,
    });
    const read = await ssoGet(jsonRequest("/api/workspace/sso", { cookie: await sessionCookie(s, owner), workspace: ws.slug }));
    expect((await read.json()).required).toBe(true);
    expect(await auditActions(s.db, ws.id)).toContain("workspace.sso_changed");
  });
});
