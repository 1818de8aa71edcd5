import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as approvalsRoute } from "../../app/api/approvals/route";
import { GET as approvalsStreamRoute } from "../../app/api/approvals/stream/route";
import { GET as settingsRoute, PUT as groupRolesRoute } from "../../app/api/workspace/scim/route";
import { DELETE as revokeTokenRoute, POST as makeTokenRoute } from "../../app/api/workspace/scim-token/route";
import { apiKeys, auditLog, authSessions, doorTokens, memberships, scimTokens, scimUsers, users } from "../../lib/db/schema";
import { authenticateDoorToken } from "../../lib/door/tokens";
import { doorTokenFor } from "../support/door";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { makeAgent } from "../support/runtime";
import { claimDomain, scimClient } from "../support/scim";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";

/** How often this file's event streams recheck their viewer's access (the product's default is 8 s). */
const RECHECK_SECONDS = 1;

describe("SCIM: an identity provider provisions people and groups, as in its conformance tests", () => {
  const server = useTestServer({ env: { CLAWDECK_STREAM_RECHECK_SECONDS: String(RECHECK_SECONDS) } });

  /** A workspace with an owner who made its SCIM token. */
  async function directory() {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, `Directory ${crypto.randomBytes(3).toString("hex")}`, owner);
    const ownerAs = { cookie: await sessionCookie(s, owner), workspace: ws.slug };
    await claimDomain(s.db, ws.id);
    const made = await makeTokenRoute(jsonRequest("/api/workspace/scim-token", { method: "POST", ...ownerAs }));
    expect(made.status).toBe(201);
    const { token } = (await made.json()) as { token: string };
    const role = async (userId: string) =>
      (await s.db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.workspaceId, ws.id), eq(memberships.userId, userId))))[0]?.role ?? null;
    const actions = async () => (await s.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.workspaceId, ws.id))).map((a) => a.action);
    return { s, owner, ws, ownerAs, token, scim: scimClient(token), role, actions };
  }
  const email = (name: string) => `${name}-${crypto.randomBytes(3).toString("hex")}@corp.example`;
  const userBody = (userName: string, extra: Record<string, unknown> = {}) => ({
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName,
    name: { givenName: "Rita", familyName: "Ramos" },
    emails: [{ value: userName, type: "work", primary: true }],
    active: true,
    ...extra,
  });

  it("describes itself: ServiceProviderConfig, ResourceTypes and Schemas, as application/scim+json", async () => {
    const { scim } = await directory();
    const config = await scim.get("/ServiceProviderConfig");
    expect(config.status).toBe(200);
    expect(config.headers.get("content-type")).toMatch(/^application\/scim\+json/);
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false }, authenticationSchemes: [{ type: "oauthbearertoken" }] });
    const types = await scim.get("/ResourceTypes");
    expect(types.body.Resources.map((t: { id: string; endpoint: string }) => [t.id, t.endpoint])).toEqual([["User", "/Users"], ["Group", "/Groups"]]);
    const schemas = await scim.get("/Schemas");
    expect(schemas.body.totalResults).toBe(2);
    const userSchema = schemas.body.Resources.find((r: { id: string }) => r.id === "urn:ietf:params:scim:schemas:core:2.0:User");
    expect(userSchema.attributes.find((a: { name: string }) => a.name === "userName")).toMatchObject({ required: true, uniqueness: "server", caseExact: false });
  });

  it("refuses a missing, wrong or revoked token with 401 in SCIM's error shape, and changes nothing; a new token revokes the old; only owners manage it", async () => {
    const { s, ws, ownerAs, token, scim } = await directory();
    const before = await s.db.select().from(scimUsers).where(eq(scimUsers.workspaceId, ws.id));
    for (const wrong of [null, "scim_nope", `scim_${crypto.randomBytes(32).toString("base64url")}`]) {
      const refused = await scimClient(wrong).post("/Users", userBody(email("mallory")));
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "401", detail: expect.stringMatching(/SCIM token/) });
    }
    expect((await scim.get("/Users")).status).toBe(200);
    const settings = await (await settingsRoute(jsonRequest("/api/workspace/scim", ownerAs))).json();
    expect(settings).toEqual({ token: { prefix: token.slice(0, 9), createdAt: expect.any(String), lastUsedAt: expect.any(String) }, groupRoles: {}, baseUrl: expect.stringMatching(/\/scim\/v2$/) });
    expect(JSON.stringify(settings)).not.toContain(token.slice(9));

    const again = await makeTokenRoute(jsonRequest("/api/workspace/scim-token", { method: "POST", ...ownerAs }));
    const { token: second } = (await again.json()) as { token: string };
    expect(second).toMatch(/^scim_[A-Za-z0-9_-]{43}$/);
    const old = await scim.post("/Users", userBody(email("after-replaced")));
    expect(old.status).toBe(401);
    expect((await scimClient(second).get("/Users")).status).toBe(200);
    expect(await s.db.select().from(scimTokens).where(eq(scimTokens.workspaceId, ws.id))).toHaveLength(2);

    const manager = await makeUser(s.db, ws.id, "manager");
    const byManager = await makeTokenRoute(jsonRequest("/api/workspace/scim-token", { method: "POST", cookie: await sessionCookie(s, manager), workspace: ws.slug }));
    expect(byManager.status).toBe(403);
    expect((await revokeTokenRoute(jsonRequest("/api/workspace/scim-token", { method: "DELETE", ...ownerAs }))).status).toBe(204);
    expect((await scimClient(second).get("/Users")).status).toBe(401);
    expect(await s.db.select().from(scimUsers).where(eq(scimUsers.workspaceId, ws.id))).toEqual(before);
    const settled = await (await settingsRoute(jsonRequest("/api/workspace/scim", ownerAs))).json();
    expect(settled.token).toBeNull();
  });

  it("creates a person without a password, refuses the same userName in another case with 409, finds them by id and by a filter in any case, pages, and replaces them", async () => {
    const { s, scim, role, actions } = await directory();
    const rita = email("rita");
    const created = await scim.post("/Users", userBody(rita, { externalId: "okta-00u1" }));
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(created.body.meta.location);
    expect(created.body).toMatchObject({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: rita, externalId: "okta-00u1", active: true, groups: [], meta: { resourceType: "User" } });
    const [account] = await s.db.select().from(users).where(eq(users.email, rita));
    expect(account).toMatchObject({ name: "Rita Ramos", passwordHash: "!no-password" });
    expect(await role(account!.id)).toBe("member");

    const duplicate = await scim.post("/Users", userBody(rita.toUpperCase()));
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ status: "409", scimType: "uniqueness" });

    const id = created.body.id as string;
    expect((await scim.get(`/Users/${id}`)).body).toMatchObject({ id, userName: rita });
    expect((await scim.get(`/Users/${crypto.randomUUID()}`)).body).toMatchObject({ status: "404" });
    const found = await scim.get(`/Users?filter=${encodeURIComponent(`userName eq "${rita.toUpperCase()}"`)}`);
    expect(found.body).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 1, startIndex: 1, itemsPerPage: 1, Resources: [{ id }] });
    expect((await scim.get(`/Users?filter=${encodeURIComponent('externalId eq "okta-00u1"')}`)).body.totalResults).toBe(1);
    expect((await scim.get(`/Users?filter=${encodeURIComponent('userName eq "nobody@corp.example"')}`)).body).toMatchObject({ totalResults: 0, Resources: [] });
    for (const bad of ['userName co "rit"', "userName eq", 'title eq "x"']) {
      const refused = await scim.get(`/Users?filter=${encodeURIComponent(bad)}`);
      expect(refused.status).toBe(400);
      expect(refused.body.scimType).toBe("invalidFilter");
    }

    for (const name of ["sam", "tao"]) expect((await scim.post("/Users", userBody(email(name)))).status).toBe(201);
    const first = await scim.get("/Users?startIndex=1&count=2");
    expect(first.body).toMatchObject({ totalResults: 3, startIndex: 1, itemsPerPage: 2 });
    const rest = await scim.get("/Users?startIndex=3&count=2");
    expect(rest.body).toMatchObject({ totalResults: 3, startIndex: 3, itemsPerPage: 1 });
    expect([...first.body.Resources, ...rest.body.Resources].map((r: { id: string }) => r.id)).toHaveLength(3);

    const replaced = await scim.put(`/Users/${id}`, userBody(rita, { externalId: "okta-00u1", displayName: "Rita R.", title: "Engineer" }));
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ displayName: "Rita R.", title: "Engineer", active: true });
    expect(await role(account!.id)).toBe("member");
    const invalid = await scim.post("/Users", { userName: "not an email" });
    expect(invalid.body).toMatchObject({ status: "400", scimType: "invalidValue" });
    expect(await actions()).toEqual(expect.arrayContaining(["scim.token_created", "scim.user_created", "scim.user_updated"]));
  });

  it("Okta's PATCH active=false ends the membership, every session and an open event stream within 10 s, and revokes door tokens and API keys; reactivating restores the mapped role", async () => {
    const { s, ws, ownerAs, scim, role, actions } = await directory();
    // A manager already in the workspace, whom the identity provider now takes over.
    const max = await makeUser(s.db, ws.id, "manager");
    const agent = await makeAgent(s.db, ws.id, { model: "offline" });
    const door = await doorTokenFor(s.db, { id: agent.id, workspaceId: ws.id }, max.id);
    // Written as the API keys module writes a key: only its hash is kept.
    await s.db.insert(apiKeys).values({ workspaceId: ws.id, name: "nightly", role: "manager", keyHash: crypto.randomBytes(32).toString("hex"), prefix: "ck_test", createdBy: max.id });
    const cookie = await sessionCookie(s, max);
    const created = await scim.post("/Users", userBody(max.email));
    expect(created.status).toBe(201);
    expect(await role(max.id)).toBe("manager");
    expect((await groupRolesRoute(jsonRequest("/api/workspace/scim", { method: "PUT", ...ownerAs, body: { groupRoles: { "Clawdeck-Reviewers": "reviewer" } } }))).status).toBe(200);
    const group = await scim.post("/Groups", { displayName: "clawdeck-reviewers", members: [{ value: created.body.id }] });
    expect(group.status).toBe(201);
    expect(await role(max.id)).toBe("reviewer");

    const stream = await approvalsStreamRoute(jsonRequest("/api/approvals/stream", { cookie, workspace: ws.slug }));
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read();
    const deactivatedAt = Date.now();
    const patched = await scim.patch(`/Users/${created.body.id}`, [{ op: "replace", value: { active: false } }]);
    expect(patched.status).toBe(200);
    expect(patched.body.active).toBe(false);
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(Date.now() - deactivatedAt).toBeLessThan(10_000);
    expect(rest).toContain("unauthorized:session");

    expect(await role(max.id)).toBeNull();
    expect((await approvalsRoute(jsonRequest("/api/approvals", { cookie, workspace: ws.slug }))).status).toBe(401);
    expect(await s.db.select().from(authSessions).where(and(eq(authSessions.userId, max.id)))).toEqual([expect.objectContaining({ revokedAt: expect.any(Date) })]);
    await expect(authenticateDoorToken(s.db, `Bearer ${door}`)).rejects.toMatchObject({ code: "unauthorized:door_token" });
    expect((await s.db.select().from(doorTokens).where(eq(doorTokens.agentId, agent.id)))[0]!.revokedAt).not.toBeNull();
    expect((await s.db.select().from(apiKeys).where(eq(apiKeys.createdBy, max.id)))[0]!.revokedAt).not.toBeNull();

    // Entra ID reactivates with a capitalised op and a string for the boolean: a member again, with the group's role.
    const back = await scim.patch(`/Users/${created.body.id}`, [{ op: "Replace", path: "active", value: "True" }]);
    expect(back.body).toMatchObject({ active: true, groups: [{ value: group.body.id, display: "clawdeck-reviewers" }] });
    expect(await role(max.id)).toBe("reviewer");
    expect(await actions()).toEqual(expect.arrayContaining(["scim.user_deactivated", "member.removed", "scim.user_reactivated", "member.role_changed", "scim.group_roles_set"]));
  }, 30_000);

  it("Entra ID's PATCH with path active and \"False\" deactivates too, and edits attributes by path; the last owner is never removed", async () => {
    const { s, owner, scim, role } = await directory();
    const tao = email("tao");
    const created = await scim.post("/Users", userBody(tao));
    const id = created.body.id as string;
    const edited = await scim.patch(`/Users/${id}`, [
      { op: "Replace", path: "name.givenName", value: "Tao" },
      { op: "Add", path: 'emails[type eq "work"].value', value: tao },
      { op: "Replace", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Ops" },
    ]);
    expect(edited.body).toMatchObject({ name: { givenName: "Tao", familyName: "Ramos" }, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Ops" } });
    expect(edited.body.schemas).toContain("urn:ietf:params:scim:schemas:extension:enterprise:2.0:User");
    const [account] = await s.db.select().from(users).where(eq(users.email, tao));
    expect((await scim.patch(`/Users/${id}`, [{ op: "Replace", path: "active", value: "False" }])).body.active).toBe(false);
    expect(await role(account!.id)).toBeNull();
    expect((await scim.patch(`/Users/${id}`, [{ op: "replace", path: "members[", value: 1 }])).body.scimType).toBe("invalidPath");

    const ownerEntry = await scim.post("/Users", userBody(owner.email));
    expect(ownerEntry.status).toBe(201);
    const refused = await scim.patch(`/Users/${ownerEntry.body.id}`, [{ op: "replace", value: { active: false } }]);
    expect(refused.status).toBe(409);
    expect(await role(owner.id)).toBe("owner");
    expect((await scim.get(`/Users/${ownerEntry.body.id}`)).body.active).toBe(true);
  });

  it("group membership raises a person to the mapped role and takes it back; renaming and deleting a group do too; owners stay owners", async () => {
    const { s, ws, owner, ownerAs, scim, role, actions } = await directory();
    const mapping = await groupRolesRoute(jsonRequest("/api/workspace/scim", { method: "PUT", ...ownerAs, body: { groupRoles: { "clawdeck-reviewers": "reviewer", "clawdeck-managers": "manager" } } }));
    expect((await mapping.json()).groupRoles).toEqual({ "clawdeck-reviewers": "reviewer", "clawdeck-managers": "manager" });
    const asOwner = await groupRolesRoute(jsonRequest("/api/workspace/scim", { method: "PUT", ...ownerAs, body: { groupRoles: { admins: "owner" } } }));
    expect(asOwner.status).toBe(400);

    const sam = await scim.post("/Users", userBody(email("sam")));
    const samId = (await s.db.select().from(scimUsers).where(eq(scimUsers.id, sam.body.id)))[0]!.userId;
    const ownerEntry = await scim.post("/Users", userBody(owner.email));
    const group = await scim.post("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Clawdeck-Reviewers", members: [] });
    expect(group.status).toBe(201);
    expect((await scim.post("/Groups", { displayName: "clawdeck-reviewers" })).body).toMatchObject({ status: "409", scimType: "uniqueness" });
    const gid = group.body.id as string;
    expect((await scim.get(`/Groups?filter=${encodeURIComponent('displayName eq "clawdeck-reviewers"')}`)).body).toMatchObject({ totalResults: 1, Resources: [{ id: gid }] });

    const added = await scim.patch(`/Groups/${gid}`, [{ op: "add", path: "members", value: [{ value: sam.body.id }, { value: ownerEntry.body.id }] }]);
    expect(added.status).toBe(200);
    expect(added.body.members.map((m: { value: string }) => m.value).sort()).toEqual([sam.body.id, ownerEntry.body.id].sort());
    expect(await role(samId)).toBe("reviewer");
    expect(await role(owner.id)).toBe("owner");
    expect((await scim.get(`/Groups/${gid}?excludedAttributes=members`)).body.members).toBeUndefined();
    expect((await scim.patch(`/Groups/${gid}`, [{ op: "add", path: "members", value: [{ value: crypto.randomUUID() }] }])).body.scimType).toBe("invalidValue");

    await scim.patch(`/Groups/${gid}`, [{ op: "remove", path: `members[value eq "${sam.body.id}"]` }]);
    expect(await role(samId)).toBe("member");
    await scim.patch(`/Groups/${gid}`, [{ op: "add", path: "members", value: [{ value: sam.body.id }] }]);
    expect(await role(samId)).toBe("reviewer");
    // Okta renames with a replace of the whole group: the new name's role applies to every member.
    const renamed = await scim.patch(`/Groups/${gid}`, [{ op: "replace", value: { id: gid, displayName: "clawdeck-managers" } }]);
    expect(renamed.body.displayName).toBe("clawdeck-managers");
    expect(await role(samId)).toBe("manager");
    const replaced = await scim.put(`/Groups/${gid}`, { displayName: "clawdeck-managers", members: [{ value: ownerEntry.body.id }] });
    expect(replaced.body.members).toEqual([expect.objectContaining({ value: ownerEntry.body.id })]);
    expect(await role(samId)).toBe("member");
    await scim.patch(`/Groups/${gid}`, [{ op: "add", path: "members", value: [{ value: sam.body.id }] }]);
    expect(await role(samId)).toBe("manager");
    await groupRolesRoute(jsonRequest("/api/workspace/scim", { method: "PUT", ...ownerAs, body: { groupRoles: { "clawdeck-managers": "reviewer" } } }));
    expect(await role(samId)).toBe("reviewer");

    expect((await scim.delete(`/Groups/${gid}`)).status).toBe(204);
    expect(await role(samId)).toBe("member");
    expect((await scim.get(`/Groups/${gid}`)).status).toBe(404);
    const changes = await s.db.select({ detail: auditLog.detail }).from(auditLog).where(and(eq(auditLog.workspaceId, ws.id), eq(auditLog.action, "member.role_changed"), eq(auditLog.actorKind, "system")));
    expect(changes.map((c) => c.detail)).toContainEqual({ from: "member", to: "reviewer", by: "identity provider" });
    expect(await actions()).toEqual(expect.arrayContaining(["scim.group_created", "scim.group_updated", "scim.group_deleted"]));
  });

  it("DELETE deprovisions a person: membership and sessions end, their SCIM record goes, their account and history stay", async () => {
    const { s, ws, scim, role, actions } = await directory();
    const ana = email("ana");
    const created = await scim.post("/Users", userBody(ana));
    const [account] = await s.db.select().from(users).where(eq(users.email, ana));
    const cookie = await sessionCookie(s, account!);
    expect((await approvalsRoute(jsonRequest("/api/approvals", { cookie, workspace: ws.slug }))).status).toBe(200);
    expect((await scim.delete(`/Users/${created.body.id}`)).status).toBe(204);
    expect((await scim.get(`/Users/${created.body.id}`)).status).toBe(404);
    expect(await role(account!.id)).toBeNull();
    expect((await approvalsRoute(jsonRequest("/api/approvals", { cookie, workspace: ws.slug }))).status).toBe(401);
    expect(await s.db.select().from(users).where(eq(users.id, account!.id))).toHaveLength(1);
    expect(await actions()).toEqual(expect.arrayContaining(["scim.user_created", "member.removed", "scim.user_deleted"]));
    // Provisioned again later: the same account, a member again.
    expect((await scim.post("/Users", userBody(ana))).status).toBe(201);
    expect(await role(account!.id)).toBe("member");
  });
});
