import { and, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DELETE as revokeRoute } from "../../app/api/invitations/[id]/route";
import { POST as acceptRoute } from "../../app/api/invitations/accept/route";
import { GET as listInvitationsRoute, POST as inviteRoute } from "../../app/api/invitations/route";
import { GET as agentsRoute } from "../../app/api/agents/route";
import { GET as workspacesRoute } from "../../app/api/workspaces/route";
import { invitations, memberships } from "../../lib/db/schema";
import { createInvitation, hashInvitationToken, previewInvitation } from "../../lib/workspaces/invitations";
import { defaultWorkspaceForUser } from "../../lib/workspaces/workspaces";
import { verifyCredentials, type PublicUser } from "../../lib/workspaces/users";
import type { Server } from "../../lib/server";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

async function invite(s: Server, inviter: PublicUser, workspace: string, email: string, role = "member") {
  const res = await inviteRoute(
    jsonRequest("/api/invitations", { method: "POST", cookie: await sessionCookie(s, inviter), workspace, body: { email, role } }),
  );
  return res;
}

async function inviteOk(s: Server, inviter: PublicUser, workspace: string, email: string, role = "member") {
  const res = await invite(s, inviter, workspace, email, role);
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; url: string; token: string };
}

const accept = (body: unknown, cookie?: string) => acceptRoute(jsonRequest("/api/invitations/accept", { method: "POST", body, cookie }));

async function memberIds(s: Server, workspaceId: string) {
  return (await s.db.select().from(memberships).where(eq(memberships.workspaceId, workspaceId))).map((m) => m.userId);
}

describe("invitations", () => {
  const server = useTestServer();

  it("an attacker's invitation for a victim's email can neither set the victim's password nor add the victim", async () => {
    const s = server();
    const victim = await makeUser(s.db);
    const attacker = await makeUser(s.db);
    const trap = await makeWorkspace(s.db, "Trap", attacker);
    const { token } = await inviteOk(s, attacker, trap.slug, victim.email, "member");

    const res = await accept({ token, name: "Victim", password: "attacker-chosen-1" });
    expect(res.status).toBe(409);
    expect((await res.json()).code).toBe("conflict:account");
    expect(await verifyCredentials(s.db, victim.email, "attacker-chosen-1")).toBeNull();
    expect(await verifyCredentials(s.db, victim.email, "password-123")).not.toBeNull();
    expect(await memberIds(s, trap.id)).not.toContain(victim.id);

    // The victim, signed in, is offered nothing because of their email.
    const theirs = await (await workspacesRoute(jsonRequest("/api/workspaces", { cookie: await sessionCookie(s, victim) }))).json();
    expect(theirs.workspaces.map((w: { slug: string }) => w.slug)).not.toContain(trap.slug);
  });

  it("an invitation is accepted only with its token: a matching email is never enough", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Tokens Only", owner);
    const bob = await makeUser(s.db);
    await inviteOk(s, owner, ws.slug, bob.email, "reviewer");
    const cookie = await sessionCookie(s, bob);

    const wrong = await accept({ token: "x".repeat(43) }, cookie);
    expect(wrong.status).toBe(404);
    expect((await wrong.json()).code).toBe("not_found:invitation");
    const agents = await agentsRoute(jsonRequest("/api/agents", { cookie, workspace: ws.slug }));
    expect(agents.status).toBe(403);
    expect(await memberIds(s, ws.id)).not.toContain(bob.id);
  });

  it("inviting an email with an account and one without gives the same answer", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Same Answer", owner);
    const existing = await makeUser(s.db);
    const known = await invite(s, owner, ws.slug, existing.email);
    const unknown = await invite(s, owner, ws.slug, "nobody-here@test.local");
    expect(known.status).toBe(unknown.status);
    const a = await known.json();
    const b = await unknown.json();
    const shape = (v: unknown): unknown =>
      v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)])) : typeof v;
    expect(shape(a)).toEqual(shape(b));
    expect(JSON.stringify(a)).not.toContain(existing.name);

    // The accept page shows both the same way.
    expect(Object.keys(await previewInvitation(s.db, a.token))).toEqual(Object.keys(await previewInvitation(s.db, b.token)));
    // Nobody joined.
    expect(await memberIds(s, ws.id)).toEqual([owner.id]);
  });

  it("a new person accepts with the password they choose and lands in that workspace", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    await makeWorkspace(s.db, "Aardvark", owner);
    const ws = await makeWorkspace(s.db, "Zebra Team", owner);
    const { token, url } = await inviteOk(s, owner, ws.slug, "New.Person@Test.Local", "reviewer");
    expect(url).toBe(`http://localhost:3000/invite/${token}`);

    const res = await accept({ token, name: "New Person", password: "my-own-pass-1" });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toMatchObject({ workspace: { slug: ws.slug }, role: "reviewer", user: { email: "new.person@test.local", name: "New Person" } });
    const person = await verifyCredentials(s.db, "new.person@test.local", "my-own-pass-1");
    expect(person).not.toBeNull();
    expect((await defaultWorkspaceForUser(s.db, person!.id))?.slug).toBe(ws.slug);
  });

  it("accepting goes through the same request rules as every write: a foreign origin is 403, a NUL is 400, a huge body is 413, and nobody joins", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Guarded Door", owner);
    const victim = await makeUser(s.db);
    const { token } = await inviteOk(s, owner, ws.slug, "someone@test.local", "reviewer");
    const cookie = await sessionCookie(s, victim);

    // Another site's page making a signed-in victim join the attacker's workspace.
    const crossSite = await acceptRoute(jsonRequest("/api/invitations/accept", { method: "POST", body: { token }, cookie, headers: { origin: "https://evil.example" } }));
    expect(crossSite.status).toBe(403);
    expect((await crossSite.json()).code).toBe("forbidden:origin");
    const withNul = await accept({ token, name: "Nul\u0000Name", password: "long-enough-1" });
    expect(withNul.status).toBe(400);
    expect((await withNul.json()).code).toBe("bad_request:nul");
    const huge = await accept({ token, name: "x".repeat(2 * 1024 * 1024), password: "long-enough-1" });
    expect(huge.status).toBe(413);
    expect(await memberIds(s, ws.id)).toEqual([owner.id]);
    // The invitation is still usable by its holder.
    expect((await accept({ token }, cookie)).status).toBe(201);
  });

  it("a signed-in account accepts with the token alone and joins, whatever its email; without a session it is 401", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Join Me", owner);
    const carol = await makeUser(s.db);
    const { token } = await inviteOk(s, owner, ws.slug, "carol.at.work@test.local", "manager");

    const anonymous = await accept({ token });
    expect(anonymous.status).toBe(401);
    const res = await accept({ token }, await sessionCookie(s, carol));
    expect(res.status).toBe(201);
    expect((await res.json()).workspace.slug).toBe(ws.slug);
    const [row] = await s.db.select().from(memberships).where(eq(memberships.userId, carol.id));
    expect(row).toMatchObject({ workspaceId: ws.id, role: "manager" });
  });

  it("a token works once; used, expired, revoked and unknown tokens all get the same 404", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Once", owner);
    const used = await inviteOk(s, owner, ws.slug, "first@test.local");
    expect((await accept({ token: used.token, name: "First", password: "first-pass-1" })).status).toBe(201);

    const expired = await createInvitation(
      s.db,
      ws.id,
      { userId: owner.id, role: "owner" },
      { email: "late@test.local", role: "member" },
      { now: new Date(Date.now() - 8 * 24 * 60 * 60 * 1000) },
    );
    const revoked = await inviteOk(s, owner, ws.slug, "revoked@test.local");
    const revoke = await revokeRoute(
      jsonRequest(`/api/invitations/${revoked.id}`, { method: "DELETE", cookie: await sessionCookie(s, owner), workspace: ws.slug }),
      params({ id: revoked.id }),
    );
    expect(revoke.status).toBe(204);

    const answers = [];
    for (const token of [used.token, expired.token, revoked.token, "y".repeat(43)]) {
      const res = await accept({ token, name: "Someone", password: "someone-pass-1" });
      answers.push({ status: res.status, body: await res.json() });
      await expect(previewInvitation(s.db, token)).rejects.toMatchObject({ code: "not_found:invitation" });
    }
    expect(answers[0]!.status).toBe(404);
    expect(answers[0]!.body.code).toBe("not_found:invitation");
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(await verifyCredentials(s.db, "revoked@test.local", "someone-pass-1")).toBeNull();
    expect(await verifyCredentials(s.db, "late@test.local", "someone-pass-1")).toBeNull();
  });

  it("an address with a pending invitation is not invited twice: 409 says what is waiting, and a replacement revokes the old link", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Once Each", owner);
    const first = await inviteOk(s, owner, ws.slug, "twice@test.local");
    const again = await invite(s, owner, ws.slug, "Twice@Test.local", "reviewer");
    expect(again.status).toBe(409);
    const body = await again.json();
    expect(body.code).toBe("conflict:invitation");
    expect(body.message).toBe(`twice@test.local already has a pending invitation as member, made by ${owner.name}. Make a new link to replace it: the old link stops working.`);
    expect(body.details).toMatchObject({ invitationId: first.id, role: "member" });
    expect((await s.db.select().from(invitations).where(eq(invitations.workspaceId, ws.id))).length).toBe(1);

    const replaced = await inviteRoute(
      jsonRequest("/api/invitations", { method: "POST", cookie: await sessionCookie(s, owner), workspace: ws.slug, body: { email: "twice@test.local", role: "reviewer", replace: true } }),
    );
    expect(replaced.status).toBe(201);
    const second = (await replaced.json()) as { id: string; token: string };
    // The old link opens nothing; the new one invites as reviewer, and says who invited.
    await expect(previewInvitation(s.db, first.token)).rejects.toMatchObject({ code: "not_found:invitation" });
    expect(await previewInvitation(s.db, second.token)).toMatchObject({ role: "reviewer", invitedBy: owner.name, workspaceName: "Once Each" });
    const pendingList = await (await listInvitationsRoute(jsonRequest("/api/invitations", { cookie: await sessionCookie(s, owner), workspace: ws.slug }))).json();
    expect(pendingList.invitations.map((i: { id: string }) => i.id)).toEqual([second.id]);
  });

  it("two invitations of one address at once make one; a manager cannot replace an owner's invitation", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "At Once", owner);
    const answers = await Promise.all([invite(s, owner, ws.slug, "race@test.local"), invite(s, owner, ws.slug, "race@test.local")]);
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    const rows = async () => s.db.select().from(invitations).where(and(eq(invitations.workspaceId, ws.id), isNull(invitations.revokedAt)));
    expect(await rows()).toHaveLength(1);

    const manager = await makeUser(s.db, ws.id, "manager");
    await inviteOk(s, owner, ws.slug, "boss@test.local", "owner");
    const replace = await inviteRoute(
      jsonRequest("/api/invitations", { method: "POST", cookie: await sessionCookie(s, manager), workspace: ws.slug, body: { email: "boss@test.local", role: "member", replace: true } }),
    );
    expect(replace.status).toBe(403);
    expect((await rows()).map((r) => [r.email, r.role]).sort()).toEqual([
      ["boss@test.local", "owner"],
      ["race@test.local", "member"],
    ]);
  });

  it("the pending list shows who was invited, never a token, and drops revoked and accepted ones", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Pending", owner);
    const cookie = await sessionCookie(s, owner);
    const a = await inviteOk(s, owner, ws.slug, "a@test.local");
    const b = await inviteOk(s, owner, ws.slug, "b@test.local");
    const c = await inviteOk(s, owner, ws.slug, "c@test.local");
    await accept({ token: b.token, name: "B", password: "b-password-1" });
    await revokeRoute(jsonRequest(`/api/invitations/${c.id}`, { method: "DELETE", cookie, workspace: ws.slug }), params({ id: c.id }));

    const res = await listInvitationsRoute(jsonRequest("/api/invitations", { cookie, workspace: ws.slug }));
    const text = await res.text();
    const { invitations: listed } = JSON.parse(text);
    expect(listed.map((i: { email: string }) => i.email)).toEqual(["a@test.local"]);
    expect(listed[0]).toMatchObject({ id: a.id, role: "member", invitedBy: owner.name });
    expect(text).not.toContain(a.token);
    expect(text).not.toContain(hashInvitationToken(a.token));
    expect(text).not.toMatch(/token/i);

    // At rest there is only the hash.
    const [row] = await s.db.select().from(invitations).where(eq(invitations.id, a.id));
    expect(row!.tokenHash).toBe(hashInvitationToken(a.token));
    expect(JSON.stringify(row)).not.toContain(a.token);
  });

  it("only owners invite owners; managers invite the other roles", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Owners", owner);
    const manager = await makeUser(s.db, ws.id, "manager");
    const refused = await invite(s, manager, ws.slug, "boss@test.local", "owner");
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe("forbidden:role");
    expect((await invite(s, manager, ws.slug, "helper@test.local", "manager")).status).toBe(201);
    expect((await invite(s, owner, ws.slug, "boss@test.local", "owner")).status).toBe(201);
    const stored = await s.db.select().from(invitations).where(eq(invitations.workspaceId, ws.id));
    expect(stored.map((i) => `${i.email}:${i.role}`).sort()).toEqual(["boss@test.local:owner", "helper@test.local:manager"]);
  });

  it("members and reviewers cannot invite, list or revoke invitations (403) and nothing is stored", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Closed", owner);
    const pending = await inviteOk(s, owner, ws.slug, "pending@test.local");
    for (const role of ["member", "reviewer"] as const) {
      const person = await makeUser(s.db, ws.id, role);
      const cookie = await sessionCookie(s, person);
      const res = await invite(s, person, ws.slug, `from-${role}@test.local`);
      expect(res.status).toBe(403);
      expect((await res.json()).code).toBe("forbidden:role");
      expect((await listInvitationsRoute(jsonRequest("/api/invitations", { cookie, workspace: ws.slug }))).status).toBe(403);
      const revoke = await revokeRoute(
        jsonRequest(`/api/invitations/${pending.id}`, { method: "DELETE", cookie, workspace: ws.slug }),
        params({ id: pending.id }),
      );
      expect(revoke.status).toBe(403);
    }
    const stored = await s.db.select().from(invitations).where(eq(invitations.workspaceId, ws.id));
    expect(stored.map((i) => i.email)).toEqual(["pending@test.local"]);
    expect(stored[0]!.revokedAt).toBeNull();
  });

  it("a refused invitation says what is wrong in words, field by field, and stores nothing", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Words", owner);
    const refusal = async (body: unknown) => {
      const res = await inviteRoute(jsonRequest("/api/invitations", { method: "POST", cookie: await sessionCookie(s, owner), workspace: ws.slug, body }));
      expect(res.status).toBe(400);
      return (await res.json()) as { code: string; message: string; details: { path: string; message: string }[] };
    };
    const long = `${"a".repeat(250)}@test.local`;
    expect(await refusal({ email: long, role: "member" })).toMatchObject({
      code: "bad_request:body",
      message: "The email is too long: at most 254 characters.",
      details: [{ path: "email", message: "The email is too long: at most 254 characters." }],
    });
    expect(await refusal({ email: "pat@test.local" })).toMatchObject({ message: "The role is missing.", details: [{ path: "role" }] });
    expect((await refusal({ email: "pat@test.local", role: "boss" })).message).toBe("The role should be one of: owner, manager, reviewer, member.");
    // A schema's own words stay.
    expect((await refusal({ email: "not an address", role: "member" })).message).toBe("Enter a valid email address");
    expect(await s.db.select().from(invitations).where(eq(invitations.workspaceId, ws.id))).toEqual([]);
  });

  it("another workspace's invitation cannot be revoked (404) and stays usable", async () => {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Theirs", owner);
    const other = await makeUser(s.db);
    const mine = await makeWorkspace(s.db, "Mine", other);
    const theirs = await inviteOk(s, owner, ws.slug, "guest@test.local");
    const res = await revokeRoute(
      jsonRequest(`/api/invitations/${theirs.id}`, { method: "DELETE", cookie: await sessionCookie(s, other), workspace: mine.slug }),
      params({ id: theirs.id }),
    );
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("not_found:invitation");
    expect((await previewInvitation(s.db, theirs.token)).workspaceName).toBe("Theirs");
  });

  it("one person creates at most CLAWDECK_INVITATIONS_PER_HOUR invitations an hour, across workspaces: the next is 429 with Retry-After and is not stored", async () => {
    const s = server();
    const perHour = 6;
    const before = s.env.CLAWDECK_INVITATIONS_PER_HOUR;
    s.env.CLAWDECK_INVITATIONS_PER_HOUR = perHour;
    try {
      const prober = await makeUser(s.db);
      const first = await makeWorkspace(s.db, "Probe One", prober);
      const second = await makeWorkspace(s.db, "Probe Two", prober);
      for (let i = 0; i < perHour; i++) await inviteOk(s, prober, i % 2 ? first.slug : second.slug, `probe${i}@test.local`);
      const refused = await invite(s, prober, first.slug, "one-more@test.local");
      expect(refused.status).toBe(429);
      expect((await refused.json()).code).toBe("rate_limited:invitations");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await s.db.select().from(invitations).where(eq(invitations.email, "one-more@test.local"))).toEqual([]);
      // Someone else is not limited by it.
      const other = await makeUser(s.db);
      const theirs = await makeWorkspace(s.db, "Elsewhere", other);
      await inviteOk(s, other, theirs.slug, "welcome@test.local");
    } finally {
      s.env.CLAWDECK_INVITATIONS_PER_HOUR = before;
    }
  });

  it("the default workspace is the one opened last, never the first by name", async () => {
    const s = server();
    const person = await makeUser(s.db);
    const zulu = await makeWorkspace(s.db, "Zulu", person);
    const stranger = await makeUser(s.db);
    const alpha = await makeWorkspace(s.db, "Alpha", stranger);
    const cookie = await sessionCookie(s, person);
    const current = async () => (await defaultWorkspaceForUser(s.db, person.id))?.slug;

    // Being invited changes nothing; accepting lands the person there.
    const { token } = await inviteOk(s, stranger, alpha.slug, person.email);
    expect(await current()).toBe(zulu.slug);
    expect((await accept({ token }, cookie)).status).toBe(201);
    expect(await current()).toBe(alpha.slug);

    // Opening Zulu (the tab's header or the cookie) makes it the default again.
    expect((await agentsRoute(jsonRequest("/api/agents", { cookie, workspace: zulu.slug }))).status).toBe(200);
    expect(await current()).toBe(zulu.slug);
    const viaCookie = await agentsRoute(jsonRequest("/api/agents", { cookie: `${cookie}; clawdeck-workspace=${alpha.slug}` }));
    expect(viaCookie.status).toBe(200);
    expect(await current()).toBe(alpha.slug);
  });
});
