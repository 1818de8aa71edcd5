import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as acceptRoute } from "../../app/api/invitations/accept/route";
import { GET as listInvitationsRoute, POST as inviteRoute } from "../../app/api/invitations/route";
import { DELETE as removeMemberRoute, PATCH as changeRoleRoute } from "../../app/api/members/[userId]/route";
import { auditLog, invitations, memberships } from "../../lib/db/schema";
import type { Server } from "../../lib/server";
import type { PublicUser } from "../../lib/workspaces/users";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

/** An invitation is worth no more than its maker's authority, now: removal or demotion takes it back. */
describe("invitations outlive no one's authority", () => {
  const server = useTestServer();

  async function team() {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, "Authority", owner);
    const manager = await makeUser(s.db, ws.id, "manager");
    return { s, owner, ws, manager, ownerCookie: await sessionCookie(s, owner) };
  }

  async function invite(s: Server, inviter: PublicUser, workspace: string, email: string, role: string) {
    const res = await inviteRoute(jsonRequest("/api/invitations", { method: "POST", cookie: await sessionCookie(s, inviter), workspace, body: { email, role } }));
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; token: string };
  }

  const accept = async (s: Server, user: PublicUser, token: string) =>
    acceptRoute(jsonRequest("/api/invitations/accept", { method: "POST", body: { token }, cookie: await sessionCookie(s, user) }));
  const roleIn = async (s: Server, workspaceId: string, userId: string) =>
    (await s.db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId))))[0]?.role ?? null;

  it("a manager who invites a manager, is removed and accepts their own invitation while still signed in gets 404 and is not back; the invitation was revoked with the removal, audited", async () => {
    const { s, ws, manager, ownerCookie } = await team();
    const { id, token } = await invite(s, manager, ws.slug, `spare-${Date.now()}@test.local`, "manager");
    const removed = await removeMemberRoute(jsonRequest(`/api/members/${manager.id}`, { method: "DELETE", cookie: ownerCookie, workspace: ws.slug }), params({ userId: manager.id }));
    expect(removed.status).toBe(204);
    const [row] = await s.db.select().from(invitations).where(eq(invitations.id, id));
    expect(row!.revokedAt).not.toBeNull();
    const res = await accept(s, manager, token);
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("not_found:invitation");
    expect(await roleIn(s, ws.id, manager.id)).toBeNull();
    const audit = await s.db.select().from(auditLog).where(and(eq(auditLog.action, "invitation.revoked"), eq(auditLog.targetId, id)));
    expect(audit).toHaveLength(1);
    // The pending list no longer shows it.
    const listed = await (await listInvitationsRoute(jsonRequest("/api/invitations", { cookie: ownerCookie, workspace: ws.slug }))).json();
    expect(listed.invitations.map((i: { id: string }) => i.id)).not.toContain(id);
  });

  it("a manager demoted to reviewer: every invitation they made is revoked; an owner demoted to manager keeps their member invitation and loses their owner one", async () => {
    const { s, ws, manager, ownerCookie } = await team();
    const made = await invite(s, manager, ws.slug, `member-${Date.now()}@test.local`, "member");
    const demote = async (userId: string, role: string) =>
      changeRoleRoute(jsonRequest(`/api/members/${userId}`, { method: "PATCH", cookie: ownerCookie, workspace: ws.slug, body: { role } }), params({ userId }));
    expect((await demote(manager.id, "reviewer")).status).toBe(200);
    const newcomer = await makeUser(s.db);
    expect((await accept(s, newcomer, made.token)).status).toBe(404);
    expect(await roleIn(s, ws.id, newcomer.id)).toBeNull();

    const second = await makeUser(s.db, ws.id, "owner");
    const asMember = await invite(s, second, ws.slug, `m-${Date.now()}@test.local`, "member");
    const asOwner = await invite(s, second, ws.slug, `o-${Date.now()}@test.local`, "owner");
    expect((await demote(second.id, "manager")).status).toBe(200);
    const [a, b] = [await makeUser(s.db), await makeUser(s.db)];
    expect((await accept(s, b, asOwner.token)).status).toBe(404);
    expect(await roleIn(s, ws.id, b.id)).toBeNull();
    expect((await accept(s, a, asMember.token)).status).toBe(201);
    expect(await roleIn(s, ws.id, a.id)).toBe("member");
  });

  it("the maker's role is checked again at acceptance: one lowered behind the revocation's back (written straight to the table) makes the invitation unusable", async () => {
    const { s, ws, manager } = await team();
    const { token } = await invite(s, manager, ws.slug, `late-${Date.now()}@test.local`, "manager");
    await s.db.update(memberships).set({ role: "member" }).where(and(eq(memberships.workspaceId, ws.id), eq(memberships.userId, manager.id)));
    const newcomer = await makeUser(s.db);
    expect((await accept(s, newcomer, token)).status).toBe(404);
    expect(await roleIn(s, ws.id, newcomer.id)).toBeNull();
    // Given back its authority, the maker's invitation works again: it was refused, not used.
    await s.db.update(memberships).set({ role: "manager" }).where(and(eq(memberships.workspaceId, ws.id), eq(memberships.userId, manager.id)));
    expect((await accept(s, newcomer, token)).status).toBe(201);
  });
});
