import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as getAgents } from "../../app/api/agents/route";
import { GET as getHealth } from "../../app/api/health/route";
import * as membersRoute from "../../app/api/members/route";
import { POST as inviteRoute } from "../../app/api/invitations/route";
import { POST as acceptRoute } from "../../app/api/invitations/accept/route";
import { DELETE as removeMemberRoute, PATCH as patchMemberRoute } from "../../app/api/members/[userId]/route";
import { GET as listWorkspacesRoute, POST as createWorkspaceRoute } from "../../app/api/workspaces/route";
import { auditLog, invitations, memberships } from "../../lib/db/schema";
import { demoOwner, makeUser, makeWorkspace } from "../support/fixtures";
import { APP_ORIGIN, jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

const { GET: listMembersRoute } = membersRoute;

describe("route glue", () => {
  const server = useTestServer();

  it("GET /api/health reports the database and migrations without secrets", async () => {
    const res = await getHealth();
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: "ok", database: { reachable: true, migrations: { current: true } } });
    expect(body.database.migrations.applied).toBeGreaterThan(0);
    expect(JSON.stringify(body)).not.toMatch(/postgres:\/\/|secret|password/i);
  });

  it("refuses a request without a session with 401 unauthorized:session", async () => {
    const res = await getAgents(jsonRequest("/api/agents"));
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("unauthorized:session");
  });

  it("refuses a forged session cookie", async () => {
    const res = await getAgents(jsonRequest("/api/agents", { cookie: "authjs.session-token=forged" }));
    expect(res.status).toBe(401);
  });

  it("lists the agents of the current workspace", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const res = await getAgents(jsonRequest("/api/agents", { cookie: await sessionCookie(s, owner) }));
    expect(res.status).toBe(200);
    const { agents } = await res.json();
    expect(agents.map((a: { handle: string }) => a.handle)).toEqual(["atlas", "forge", "herald", "scout"]);
    expect(agents[0]).toMatchObject({ model: "offline", name: "Atlas" });
  });

  it("naming a workspace the user is not in gets 403 forbidden:workspace and reveals nothing", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const stranger = await makeUser(s.db);
    const theirs = await makeWorkspace(s.db, "Private Co", stranger);
    const cookie = await sessionCookie(s, owner);
    for (const req of [
      jsonRequest("/api/agents", { cookie, workspace: theirs.slug }),
      jsonRequest("/api/agents", { cookie: `${cookie}; clawdeck-workspace=${theirs.slug}` }),
    ]) {
      const res = await getAgents(req);
      expect(res.status).toBe(403);
      const body = await res.json();
      expect(body.code).toBe("forbidden:workspace");
      expect(JSON.stringify(body)).not.toContain("Private Co");
    }
  });

  it("a member cannot list or manage members (403 forbidden:role) and nothing changes", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const cookie = await sessionCookie(s, member);
    const list = await listMembersRoute(jsonRequest("/api/members", { cookie }));
    expect(list.status).toBe(403);
    expect((await list.json()).code).toBe("forbidden:role");
    const promote = await patchMemberRoute(
      jsonRequest(`/api/members/${member.id}`, { method: "PATCH", cookie, body: { role: "owner" } }),
      params({ userId: member.id }),
    );
    expect(promote.status).toBe(403);
    const [row] = await s.db.select().from(memberships).where(eq(memberships.userId, member.id));
    expect(row?.role).toBe("member");
  });

  it("an owner invites, the invitee accepts, then re-roles and removes them through the API, each step audited", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const invited = await inviteRoute(jsonRequest("/api/invitations", { method: "POST", cookie, body: { email: "reviewer@test.local", role: "reviewer" } }));
    expect(invited.status).toBe(201);
    const { token } = await invited.json();
    const accepted = await acceptRoute(
      jsonRequest("/api/invitations/accept", { method: "POST", body: { token, name: "Rita Reviewer", password: "reviewer-pass" } }),
    );
    expect(accepted.status).toBe(201);
    const member = (await accepted.json()).user as { id: string; email: string };
    expect(member.email).toBe("reviewer@test.local");

    const patched = await patchMemberRoute(
      jsonRequest(`/api/members/${member.id}`, { method: "PATCH", cookie, body: { role: "manager" } }),
      params({ userId: member.id }),
    );
    expect(patched.status).toBe(200);
    expect((await patched.json()).member.role).toBe("manager");

    const removed = await removeMemberRoute(jsonRequest(`/api/members/${member.id}`, { method: "DELETE", cookie }), params({ userId: member.id }));
    expect(removed.status).toBe(204);
    const listed = await (await listMembersRoute(jsonRequest("/api/members", { cookie }))).json();
    expect(listed.members.map((m: { email: string }) => m.email)).not.toContain("reviewer@test.local");

    const actions = (await s.db.select().from(auditLog).where(eq(auditLog.targetId, member.id))).map((e) => e.action);
    expect(actions).toEqual(["member.role_changed", "member.removed"]);
    const joined = await s.db.select().from(auditLog).where(eq(auditLog.actorId, member.id));
    expect(joined.map((e) => e.action)).toContain("invitation.accepted");
  });

  it("/api/members has no way to add a person: there is no POST, people join by invitation", () => {
    expect(Object.keys(membersRoute).sort()).toEqual(["GET"]);
  });

  it("bad input gets 400 with a stable code and changes nothing", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const before = (await s.db.select().from(memberships)).length;
    const invitationsBefore = (await s.db.select().from(invitations)).length;
    const cases: [Request, string][] = [
      [jsonRequest("/api/invitations", { method: "POST", cookie, body: { email: "not-an-email", role: "member" } }), "bad_request:body"],
      [jsonRequest("/api/invitations", { method: "POST", cookie, body: { email: "a@b.co", role: "emperor" } }), "bad_request:body"],
      [new Request("http://localhost:3000/api/invitations", { method: "POST", headers: { cookie, "content-type": "application/json", origin: APP_ORIGIN, host: "localhost:3000" }, body: "{nope" }), "bad_request:json"],
      [new Request("http://localhost:3000/api/invitations", { method: "POST", headers: { cookie, origin: APP_ORIGIN, host: "localhost:3000" }, body: "email=a" }), "bad_request:content_type"],
    ];
    for (const [req, code] of cases) {
      const res = await inviteRoute(req);
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe(code);
    }
    expect((await s.db.select().from(invitations)).length).toBe(invitationsBefore);
    expect((await s.db.select().from(memberships)).length).toBe(before);
  });

  it("a manager cannot touch members of another workspace (404 not_found:member)", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const stranger = await makeUser(s.db);
    await makeWorkspace(s.db, "Stranger Things", stranger);
    const res = await patchMemberRoute(
      jsonRequest(`/api/members/${stranger.id}`, { method: "PATCH", cookie: await sessionCookie(s, manager), body: { role: "member" } }),
      params({ userId: stranger.id }),
    );
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("not_found:member");
  });

  it("refuses a state change sent from another site's page", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const res = await createWorkspaceRoute(
      jsonRequest("/api/workspaces", {
        method: "POST",
        cookie: await sessionCookie(s, owner),
        body: { name: "Evil" },
        headers: { origin: "https://evil.example", host: "localhost:3000" },
      }),
    );
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("forbidden:origin");
  });

  it("a user creates a workspace, becomes its owner, and sees it in their list", async () => {
    const s = server();
    const user = await makeUser(s.db);
    const cookie = await sessionCookie(s, user);
    const res = await createWorkspaceRoute(jsonRequest("/api/workspaces", { method: "POST", cookie, body: { name: "Zeta Labs" } }));
    expect(res.status).toBe(201);
    const { workspace } = await res.json();
    expect(workspace).toMatchObject({ name: "Zeta Labs", slug: "zeta-labs", role: "owner" });
    const again = await createWorkspaceRoute(jsonRequest("/api/workspaces", { method: "POST", cookie, body: { name: "Zeta Labs" } }));
    expect((await again.json()).workspace.slug).toMatch(/^zeta-labs-[0-9a-f]{6}$/);
    const list = await (await listWorkspacesRoute(jsonRequest("/api/workspaces", { cookie }))).json();
    expect(list.workspaces).toHaveLength(2);
  });
});
