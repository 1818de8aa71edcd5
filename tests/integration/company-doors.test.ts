// Every door to the same data, tried by an attacker, for API keys, SCIM, the OpenTelemetry export and the audit
// retention. A test that fails here is a hole (see the security review's report); the others hold the doors shut.
import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { POST as createKeyRoute } from "../../app/api/api-keys/route";
import { DELETE as revokeKeyRoute } from "../../app/api/api-keys/[id]/route";
import { GET as agentsRoute } from "../../app/api/agents/route";
import { GET as agentRoute } from "../../app/api/agents/[id]/route";
import { POST as makeDoorTokenRoute } from "../../app/api/agents/[id]/door-tokens/route";
import { PUT as retentionRoute } from "../../app/api/audit/retention/route";
import { GET as feedEventsRoute } from "../../app/api/feed/events/route";
import { POST as inviteRoute } from "../../app/api/invitations/route";
import { POST as acceptRoute } from "../../app/api/invitations/accept/route";
import { GET as notificationsRoute } from "../../app/api/me/notifications/route";
import { GET as deliveriesRoute } from "../../app/api/me/notifications/deliveries/route";
import { GET as slackLinkRoute } from "../../app/api/me/slack-link/route";
import { DELETE as removeMemberRoute } from "../../app/api/members/[userId]/route";
import { GET as runEventsRoute } from "../../app/api/runs/[id]/events/route";
import { GET as telemetrySettingsRoute } from "../../app/api/workspace/telemetry/route";
import { GET as scimSettingsRoute, PUT as groupRolesRoute } from "../../app/api/workspace/scim/route";
import { POST as makeScimTokenRoute } from "../../app/api/workspace/scim-token/route";
import { auditLog, memberships, scimGroups, scimUsers, users, workspaces } from "../../lib/db/schema";
import { authenticateDoorToken } from "../../lib/door/tokens";
import { createChat } from "../../lib/chats/chats";
import { STREAM_ERROR_EVENT } from "../../lib/errors";
import { createModelResolver } from "../../lib/models/registry";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { telemetryOf } from "../../lib/telemetry/telemetry";
import { startFakeAnthropic } from "../support/fake-anthropic";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { startOtlpReceiver } from "../support/otlp-receiver";
import { getRunRow, makeAgent, routeModel, settle, useScriptedModel, waitForRun } from "../support/runtime";
import { claimDomain, scimClient } from "../support/scim";
import { readFrames } from "../support/sse";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

const RECHECK_SECONDS = 1;
const receiver = await startOtlpReceiver();
const OTEL_SECRET = `otel-secret-${crypto.randomBytes(6).toString("hex")}`;

/** A request a script sends: the key as a bearer token, no cookie and no Origin header. */
const byKey = (key: string, url: string, init: { method?: string; body?: unknown; workspace?: string; headers?: Record<string, string> } = {}) => {
  const req = jsonRequest(url, { ...init, headers: { ...init.headers, authorization: `Bearer ${key}` } });
  req.headers.delete("origin");
  return req;
};

const hex = () => crypto.randomBytes(3).toString("hex");
const corpEmail = (name: string) => `${name}-${hex()}@corp.example`;
const userBody = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName,
  name: { givenName: "Provisioned", familyName: "Person" },
  emails: [{ value: userName, type: "work", primary: true }],
  active: true,
  ...extra,
});

describe("company doors: API keys, SCIM, OpenTelemetry and the audit retention, tried from every side", () => {
  const server = useTestServer({
    env: {
      CLAWDECK_STREAM_RECHECK_SECONDS: String(RECHECK_SECONDS),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${OTEL_SECRET}`,
    },
  });
  afterAll(() => receiver.close());

  /** A workspace with an owner, a manager (Rita) and a member (Mia), each with a session. */
  async function team(label = "Doors") {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, `${label} ${hex()}`, owner);
    const rita = await makeUser(s.db, ws.id, "manager");
    const mia = await makeUser(s.db, ws.id, "member");
    const as = async (u: { id: string; email: string; name: string }) => ({ cookie: await sessionCookie(s, u), workspace: ws.slug });
    const ownerAs = await as(owner);
    const ritaAs = await as(rita);
    // corp.example is the workspace's own domain: its identity provider provisions people there.
    await claimDomain(s.db, ws.id);
    const makeKey = async (role: string, who = ritaAs) => {
      const res = await createKeyRoute(jsonRequest("/api/api-keys", { method: "POST", body: { name: `script ${hex()}`, role }, ...who }));
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; key: string };
    };
    const revoke = async (id: string, who = ritaAs) =>
      expect((await revokeKeyRoute(jsonRequest(`/api/api-keys/${id}`, { method: "DELETE", ...who }), params({ id }))).status).toBe(200);
    const role = async (userId: string, workspaceId = ws.id) =>
      (await s.db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId))))[0]?.role ?? null;
    return { s, ws, owner, rita, mia, as, ownerAs, ritaAs, makeKey, revoke, role };
  }

  async function scimToken(ownerAs: { cookie: string; workspace: string }) {
    const made = await makeScimTokenRoute(jsonRequest("/api/workspace/scim-token", { method: "POST", ...ownerAs }));
    expect(made.status).toBe(201);
    return ((await made.json()) as { token: string }).token;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // API keys
  // ---------------------------------------------------------------------------------------------------------------

  it("an owner's API key cannot mint the SCIM token nor change the group → role mapping (SCIM settings are not for keys)", async () => {
    const t = await team();
    const { key, id } = await t.makeKey("owner", t.ownerAs);
    const read = await scimSettingsRoute(byKey(key, "/api/workspace/scim"));
    const minted = await makeScimTokenRoute(byKey(key, "/api/workspace/scim-token", { method: "POST" }));
    const mapping = await groupRolesRoute(byKey(key, "/api/workspace/scim", { method: "PUT", body: { groupRoles: { everyone: "manager" } } }));
    const statuses = { read: read.status, minted: minted.status, mapping: mapping.status };
    if (minted.status === 201) {
      // What a leaked key leaves behind: a directory token that outlives the key's revocation.
      const { token } = (await minted.json()) as { token: string };
      await t.revoke(id, t.ownerAs);
      expect((await agentsRoute(byKey(key, "/api/agents"))).status).toBe(401);
      const provisioned = await scimClient(token).post("/Users", userBody(corpEmail("planted")));
      expect.soft(provisioned.status, "the SCIM token minted by a now-revoked key still provisions people").toBe(401);
    }
    expect(statuses).toEqual({ read: 403, minted: 403, mapping: 403 });
  });

  it("a key never serves a person's own routes under /api/me (notifications, deliveries, the Slack link)", async () => {
    const t = await team();
    const { key } = await t.makeKey("member");
    const answers = {
      notifications: (await notificationsRoute(byKey(key, "/api/me/notifications"))).status,
      deliveries: (await deliveriesRoute(byKey(key, "/api/me/notifications/deliveries"))).status,
      slackLink: (await slackLinkRoute(byKey(key, "/api/me/slack-link"))).status,
    };
    expect(answers).toEqual({ notifications: 403, deliveries: 403, slackLink: 403 });
  });

  it("an invitation made with a key stops working once the key is revoked (a leaked key leaves no way back in)", async () => {
    const t = await team();
    const { key, id } = await t.makeKey("manager");
    const intruder = corpEmail("intruder");
    const invited = await inviteRoute(byKey(key, "/api/invitations", { method: "POST", body: { email: intruder, role: "manager" } }));
    if (invited.status !== 201) {
      // The other acceptable fix: keys do not make invitations at all.
      expect((await invited.json()).code).toBe("forbidden:api_key_scope");
      return;
    }
    const { token } = (await invited.json()) as { token: string };
    await t.revoke(id);
    expect((await agentsRoute(byKey(key, "/api/agents"))).status).toBe(401);
    const accepted = await acceptRoute(jsonRequest("/api/invitations/accept", { method: "POST", body: { token, name: "Intruder", password: "intruder-password-1" } }));
    const [account] = await t.s.db.select().from(users).where(eq(users.email, intruder));
    expect({ status: accepted.status, role: account ? await t.role(account.id) : null }).toEqual({ status: 404, role: null });
  });

  it("a door token made with a key stops working once the key is revoked", async () => {
    const t = await team();
    const agent = await makeAgent(t.s.db, t.ws.id, { model: "offline" });
    const { key, id } = await t.makeKey("manager");
    const made = await makeDoorTokenRoute(byKey(key, `/api/agents/${agent.id}/door-tokens`, { method: "POST", body: { name: "backdoor" } }), params({ id: agent.id }));
    if (made.status !== 201) {
      expect((await made.json()).code).toBe("forbidden:api_key_scope");
      return;
    }
    const { token } = (await made.json()) as { token: string };
    await t.revoke(id);
    await expect(authenticateDoorToken(t.s.db, `Bearer ${token}`)).rejects.toMatchObject({ code: "unauthorized:door_token" });
  });

  it("a maker removed by a manager and invited back does not get their old API key back", async () => {
    const t = await team();
    const { key } = await t.makeKey("manager");
    expect((await agentsRoute(byKey(key, "/api/agents"))).status).toBe(200);
    const removed = await removeMemberRoute(jsonRequest(`/api/members/${t.rita.id}`, { method: "DELETE", ...t.ownerAs }), params({ userId: t.rita.id }));
    expect(removed.status).toBe(204);
    expect((await agentsRoute(byKey(key, "/api/agents"))).status).toBe(401);
    // Months later Rita is invited again, as a member this time.
    const invited = await inviteRoute(jsonRequest("/api/invitations", { method: "POST", body: { email: t.rita.email, role: "member" }, ...t.ownerAs }));
    expect(invited.status).toBe(201);
    const { token } = (await invited.json()) as { token: string };
    const back = await acceptRoute(jsonRequest("/api/invitations/accept", { method: "POST", body: { token }, cookie: await sessionCookie(t.s, t.rita) }));
    expect(back.status).toBe(201);
    expect(await t.role(t.rita.id)).toBe("member");
    // "A maker who leaves takes every key they made with them": the old key, which may have leaked meanwhile, stays dead.
    expect((await agentsRoute(byKey(key, "/api/agents"))).status).toBe(401);
  });

  it("a reviewer key streaming another member's private chat loses it when its maker is demoted to member", async () => {
    const t = await team();
    const agent = await makeAgent(t.s.db, t.ws.id, { model: "scripted-slow" });
    const pieces = Array.from({ length: 16 }, (_, i) => `private-piece-${i} `);
    useScriptedModel(t.s, [textTurn(pieces, { inputTokens: 10, outputTokens: 16 }, 350)], "scripted-slow");
    const chat = await createChat(t.s.db, { workspaceId: t.ws.id, userId: t.mia.id, agent: { id: agent.id } });
    const { key } = await t.makeKey("reviewer");
    const { runId } = await t.s.runtime.startChatRun({ workspaceId: t.ws.id, sessionId: chat.id, userId: t.mia.id, text: "my private question" });
    const stream = await runEventsRoute(byKey(key, `/api/runs/${runId}/events`), params({ id: runId }));
    expect(stream.status).toBe(200);
    let demotedAt = 0;
    const frames = readFrames(stream, (f) => {
      if (!demotedAt && f.some((x) => JSON.stringify(x.data ?? {}).includes("private-piece-0"))) {
        demotedAt = Date.now();
        // A query builder runs only when asked to: `execute` sends it now, while the stream goes on.
        void t.s.db.update(memberships).set({ role: "member" }).where(and(eq(memberships.workspaceId, t.ws.id), eq(memberships.userId, t.rita.id))).execute();
      }
      return f.some((x) => x.event === STREAM_ERROR_EVENT || x.event === "run_completed" || x.event === "run_failed");
    });
    const read = await frames;
    await waitForRun(t.s.db, runId);
    const text = JSON.stringify(read);
    // A member may not read Mia's chat: within the recheck the stream should end, long before the last piece.
    expect(read.at(-1)?.event).toBe(STREAM_ERROR_EVENT);
    expect(text).not.toContain("private-piece-15");
  }, 30_000);

  it("holds: a key of workspace A never reaches B, by query parameter, header, cookie or an object id of B", async () => {
    const a = await team("A");
    const b = await team("B");
    const bAgent = await makeAgent(b.s.db, b.ws.id, { model: "offline" });
    const { key } = await a.makeKey("manager");
    const viaQuery = await agentsRoute(byKey(key, `/api/agents?workspace=${b.ws.slug}`));
    expect([viaQuery.status, (await viaQuery.json()).code]).toEqual([403, "forbidden:workspace"]);
    expect((await agentsRoute(byKey(key, "/api/agents", { workspace: b.ws.slug }))).status).toBe(403);
    // The workspace cookie of a browser is not read beside a key: the key stays in A.
    const viaCookie = await agentsRoute(byKey(key, "/api/agents", { headers: { cookie: `clawdeck-workspace=${b.ws.slug}; ${b.ownerAs.cookie}` } }));
    expect(viaCookie.status).toBe(200);
    expect(JSON.stringify(await viaCookie.json())).not.toContain(bAgent.id);
    const byId = await agentRoute(byKey(key, `/api/agents/${bAgent.id}`), params({ id: bAgent.id }));
    expect(byId.status).toBe(404);
    const door = await makeDoorTokenRoute(byKey(key, `/api/agents/${bAgent.id}/door-tokens`, { method: "POST", body: { name: "x" } }), params({ id: bAgent.id }));
    expect([403, 404]).toContain(door.status);
  });

  it("holds: a revoked key opens no stream, and a key never changes the audit retention", async () => {
    const t = await team();
    const owner = await t.makeKey("owner", t.ownerAs);
    const retention = await retentionRoute(byKey(owner.key, "/api/audit/retention", { method: "PUT", body: { days: 30 } }));
    expect([retention.status, (await retention.json()).code]).toEqual([403, "forbidden:api_key_scope"]);
    const [ws] = await t.s.db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, t.ws.id));
    expect(ws!.settings.auditRetentionDays).toBeUndefined();

    const { key, id } = await t.makeKey("reviewer");
    await t.revoke(id);
    const feed = await feedEventsRoute(byKey(key, "/api/feed/events"));
    expect([feed.status, (await feed.json()).code]).toEqual([401, "unauthorized:api_key"]);
    const runId = crypto.randomUUID();
    expect((await runEventsRoute(byKey(key, `/api/runs/${runId}/events`), params({ id: runId }))).status).toBe(401);
    // Nor does it pass for a SCIM token.
    expect((await scimClient(key).get("/Users")).status).toBe(401);
  });

  // ---------------------------------------------------------------------------------------------------------------
  // SCIM
  // ---------------------------------------------------------------------------------------------------------------

  it("workspace A's identity provider cannot sign a person out of workspace B by provisioning and deactivating their email", async () => {
    const a = await team("Attacker");
    const b = await team("Victim");
    const aScim = scimClient(await scimToken(a.ownerAs));
    // B's owner has nothing to do with A; A's owner only knows the address. B's owner is signed in, working in B.
    expect((await agentsRoute(jsonRequest("/api/agents", b.ownerAs))).status).toBe(200);
    const planted = await aScim.post("/Users", userBody(b.owner.email, { displayName: "Someone" }));
    if (planted.status === 201) {
      // Repeatable at will: every deactivation signs the victim out everywhere.
      await aScim.patch(`/Users/${planted.body.id}`, [{ op: "replace", value: { active: false } }]);
      await aScim.patch(`/Users/${planted.body.id}`, [{ op: "replace", value: { active: true } }]);
      await aScim.delete(`/Users/${planted.body.id}`);
    }
    expect((await agentsRoute(jsonRequest("/api/agents", b.ownerAs))).status).toBe(200);
  });

  it("an email outside the workspace's own domains makes nobody a member of A, and the answer is the same whether an account has it or not", async () => {
    const a = await team("Claimer");
    const b = await team("Elsewhere");
    const aScim = scimClient(await scimToken(a.ownerAs));
    const planted = await aScim.post("/Users", userBody(b.owner.email, { displayName: "Someone" }));
    const fresh = await aScim.post("/Users", userBody(`nobody-yet-${hex()}@test.local`));
    expect([planted.status, fresh.status]).toEqual([400, 400]);
    expect(planted.body).toEqual(fresh.body);
    expect(planted.body).toMatchObject({ scimType: "invalidValue" });
    expect(await a.role(b.owner.id)).toBeNull();
    const created = await a.s.db.select().from(auditLog).where(and(eq(auditLog.workspaceId, a.ws.id), eq(auditLog.action, "scim.user_created")));
    expect(created).toEqual([]);
  });

  it("holds: A's SCIM token cannot read, change or delete B's people and groups by id, nor put B's people in A's groups", async () => {
    const a = await team("A");
    const b = await team("B");
    const aScim = scimClient(await scimToken(a.ownerAs));
    const bScim = scimClient(await scimToken(b.ownerAs));
    const bPerson = await bScim.post("/Users", userBody(corpEmail("bee")));
    const bGroup = await bScim.post("/Groups", { displayName: `b-group-${hex()}`, members: [{ value: bPerson.body.id }] });
    expect([bPerson.status, bGroup.status]).toEqual([201, 201]);
    const before = { users: await b.s.db.select().from(scimUsers).where(eq(scimUsers.workspaceId, b.ws.id)), groups: await b.s.db.select().from(scimGroups).where(eq(scimGroups.workspaceId, b.ws.id)) };

    const uid = bPerson.body.id as string;
    const gid = bGroup.body.id as string;
    expect((await aScim.get(`/Users/${uid}`)).status).toBe(404);
    expect((await aScim.put(`/Users/${uid}`, userBody(bPerson.body.userName, { active: false }))).status).toBe(404);
    expect((await aScim.patch(`/Users/${uid}`, [{ op: "replace", value: { active: false } }])).status).toBe(404);
    expect((await aScim.delete(`/Users/${uid}`)).status).toBe(404);
    expect((await aScim.get(`/Groups/${gid}`)).status).toBe(404);
    expect((await aScim.patch(`/Groups/${gid}`, [{ op: "remove", path: "members" }])).status).toBe(404);
    expect((await aScim.put(`/Groups/${gid}`, { displayName: "taken", members: [] })).status).toBe(404);
    expect((await aScim.delete(`/Groups/${gid}`)).status).toBe(404);
    expect((await aScim.get(`/Users?filter=${encodeURIComponent(`id eq "${uid}"`)}`)).body.totalResults).toBe(0);
    expect((await aScim.get(`/Groups?filter=${encodeURIComponent(`id eq "${gid}"`)}`)).body.totalResults).toBe(0);
    // B's person as a member of A's group, at creation or by PATCH.
    const aGroup = await aScim.post("/Groups", { displayName: "a-group", members: [{ value: uid }] });
    expect([aGroup.status, aGroup.body.scimType]).toEqual([400, "invalidValue"]);
    const mine = await aScim.post("/Groups", { displayName: "a-group" });
    expect((await aScim.patch(`/Groups/${mine.body.id}`, [{ op: "add", path: "members", value: [{ value: uid }] }])).status).toBe(400);
    expect((await aScim.put(`/Groups/${mine.body.id}`, { displayName: "a-group", members: [{ value: uid }] })).status).toBe(400);
    // A quote in a filter is a value, never a second condition.
    const injected = await aScim.get(`/Users?filter=${encodeURIComponent('userName eq "x" or userName pr')}`);
    expect(injected.status).toBe(400);
    const quoted = await aScim.get(`/Users?filter=${encodeURIComponent('userName eq "x\\" or \\"1\\"=\\"1"')}`);
    expect(quoted.body.totalResults ?? 0).toBe(0);

    expect({ users: await b.s.db.select().from(scimUsers).where(eq(scimUsers.workspaceId, b.ws.id)), groups: await b.s.db.select().from(scimGroups).where(eq(scimGroups.workspaceId, b.ws.id)) }).toEqual(before);
    expect(await b.role(b.owner.id)).toBe("owner");
  });

  it("holds: provisioning never touches an existing account (name, email, password) and never makes an owner", async () => {
    const t = await team();
    const scim = scimClient(await scimToken(t.ownerAs));
    const [before] = await t.s.db.select().from(users).where(eq(users.id, t.mia.id));
    const entry = await scim.post("/Users", userBody(t.mia.email, { displayName: "Not Mia", password: "chosen-by-idp-1", roles: [{ value: "owner", primary: true }] }));
    expect(entry.status).toBe(201);
    expect(JSON.stringify(entry.body)).not.toContain("chosen-by-idp-1");
    await scim.patch(`/Users/${entry.body.id}`, [
      { op: "replace", path: "userName", value: "attacker@evil.example" },
      { op: "replace", path: 'emails[type eq "work"].value', value: "attacker@evil.example" },
      { op: "add", path: "roles", value: [{ value: "owner" }] },
      { op: "replace", value: { displayName: "Mallory", password: "another-password-2", groups: [{ value: crypto.randomUUID(), display: "owners" }] } },
    ]);
    await scim.put(`/Users/${entry.body.id}`, userBody("attacker2@evil.example", { password: "third-password-3", displayName: "Mallory" }));
    const [after] = await t.s.db.select().from(users).where(eq(users.id, t.mia.id));
    expect({ email: after!.email, name: after!.name, hash: after!.passwordHash }).toEqual({ email: before!.email, name: before!.name, hash: before!.passwordHash });
    expect(await t.role(t.mia.id)).toBe("member");
    // Groups named like owners, or a stored mapping to owner, give no owner either.
    await t.s.db
      .update(workspaces)
      .set({ settings: sql`jsonb_set(${workspaces.settings}, '{scim}', '{"groupRoles": {"owners": "owner"}}'::jsonb, true)` })
      .where(eq(workspaces.id, t.ws.id));
    const owners = await scim.post("/Groups", { displayName: "Owners", members: [{ value: entry.body.id }] });
    expect(owners.status).toBe(201);
    expect(await t.role(t.mia.id)).toBe("member");
  });

  it("holds: a SCIM body past the cap is refused before it is parsed, and a negative startIndex or a huge count still answers a page", async () => {
    const t = await team();
    const token = await scimToken(t.ownerAs);
    const huge = JSON.stringify(userBody(corpEmail("huge"), { title: "x".repeat(2_000_000) }));
    const res = await (await import("../../app/scim/v2/Users/route")).POST(
      new Request("https://idp.example.test/scim/v2/Users", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" }, body: huge }),
    );
    expect(res.status).toBe(413);
    expect(await t.s.db.select().from(scimUsers).where(eq(scimUsers.workspaceId, t.ws.id))).toEqual([]);
    const page = await scimClient(token).get("/Users?count=100000&startIndex=-5");
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ startIndex: 1 });
  });

  it("a startIndex past what PostgreSQL can count is a 400 invalidValue, not a 500", async () => {
    const t = await team();
    const far = await scimClient(await scimToken(t.ownerAs)).get("/Users?startIndex=99999999999999999999");
    expect([far.status, far.body?.scimType]).toEqual([400, "invalidValue"]);
  });

  // ---------------------------------------------------------------------------------------------------------------
  // OpenTelemetry
  // ---------------------------------------------------------------------------------------------------------------

  it("with contents off, a run's failure carries none of what the model wrote (malformed tool input): the span says the error's code", async () => {
    const s = server();
    const t = await team();
    const fake = await startFakeAnthropic({ apiKey: "sk-test-key" });
    try {
      const resolver = createModelResolver({ anthropic: { apiKey: "sk-test-key", baseURL: fake.baseURL }, named: [], offlineDelayMs: 0, defaultModel: "offline" });
      routeModel(s, "claude-sonnet-4-6", resolver("claude-sonnet-4-6").provider, "claude-sonnet-4-6");
      // An unquoted word in the model's tool input: JSON.parse's message quotes about ten characters around it.
      const marker = `q3${hex().slice(0, 4)}`;
      fake.enqueue({
        kind: "reply",
        blocks: [{ type: "tool_use", id: "toolu_01", name: "memory_remember", inputChunks: [`{"text": ${marker} closes the Berlin office}`] }],
        stopReason: "tool_use",
        usage: { input: 50, output: 10 },
      });
      const agent = await makeAgent(s.db, t.ws.id, { model: "claude-sonnet-4-6" });
      const chat = await createChat(s.db, { workspaceId: t.ws.id, userId: t.mia.id, agent: { id: agent.id } });
      const { runId } = await s.runtime.startChatRun({ workspaceId: t.ws.id, sessionId: chat.id, userId: t.mia.id, text: "note the deal" });
      await waitForRun(s.db, runId);
      const row = await getRunRow(s.db, runId);
      expect(row.state).toBe("failed");
      // The run's own sentence does not quote the input either (the JSON parser's message would).
      expect(row.error).toMatch(/^The model sent input for tool "memory\.remember" that is not valid JSON \(\d+ characters\)\.$/);
      const run = await settle(async () => {
        await telemetryOf(s.db)!.flush();
        return receiver.spans.find((span) => span.attributes["clawdeck.run.id"] === runId && span.name.startsWith("invoke_agent"));
      });
      const spans = receiver.spans.filter((span) => span.traceId === run.traceId);
      expect(JSON.stringify(spans)).not.toContain(marker);
      expect(run.status).toMatchObject({ message: row.errorCode });
    } finally {
      await fake.close();
    }
  });

  it("holds: with contents off, a failed tool's error and input stay home; the collector's credential is in no answer", async () => {
    const s = server();
    const t = await team();
    const marker = `internal-path-${hex()}`;
    const agent = await makeAgent(s.db, t.ws.id, { model: "scripted-otel-doors", tools: ["http.fetch"] });
    useScriptedModel(s, [toolTurn([{ id: "call_1", name: "http.fetch", input: { url: `http://10.0.0.7/${marker}` } }]), textTurn(["Could not."])], "scripted-otel-doors");
    const chat = await createChat(s.db, { workspaceId: t.ws.id, userId: t.mia.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: t.ws.id, sessionId: chat.id, userId: t.mia.id, text: `fetch ${marker}` });
    await waitForRun(s.db, runId);
    const run = await settle(async () => {
      await telemetryOf(s.db)!.flush();
      return receiver.spans.find((span) => span.attributes["clawdeck.run.id"] === runId && span.name.startsWith("invoke_agent"));
    });
    const spans = receiver.spans.filter((span) => span.traceId === run.traceId);
    expect(spans.some((span) => span.name === "execute_tool http.fetch")).toBe(true);
    expect(JSON.stringify(spans)).not.toContain(marker);
    expect(JSON.stringify(spans)).not.toContain("10.0.0.7");

    const settings = await telemetrySettingsRoute(jsonRequest("/api/workspace/telemetry", t.ownerAs));
    const text = await settings.text();
    expect(JSON.parse(text)).toEqual({ exportContents: false, endpointConfigured: true });
    expect(text).not.toContain(OTEL_SECRET);
    expect(text).not.toContain(receiver.url);
  });

  // ---------------------------------------------------------------------------------------------------------------
  // Audit retention
  // ---------------------------------------------------------------------------------------------------------------

  it("holds: no TRUNCATE, no workspace deletion and no crafted cut-off removes an audit entry", async () => {
    const t = await team();
    const count = async () => Number(((await t.s.db.select({ n: sql<number>`count(*)::int` }).from(auditLog).where(eq(auditLog.workspaceId, t.ws.id))) as [{ n: number }])[0].n);
    const n = await count();
    expect(n).toBeGreaterThan(0);
    const future = new Date(Date.now() + 365 * 86_400_000).toISOString();
    await expect(
      t.s.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('clawdeck.audit_prune_workspace', ${t.ws.id}, true), set_config('clawdeck.audit_prune_before', ${future}, true)`);
        await tx.execute(sql`truncate ${auditLog}`);
      }),
    ).rejects.toThrow();
    // A cut-off in the future names every entry; the trigger's own 30-day floor still keeps them.
    await expect(
      t.s.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('clawdeck.audit_prune_workspace', ${t.ws.id}, true), set_config('clawdeck.audit_prune_before', ${future}, true)`);
        await tx.delete(auditLog).where(eq(auditLog.workspaceId, t.ws.id));
      }),
    ).rejects.toThrow();
    // With the cut-off named, an UPDATE (backdating entries so a later sweep takes them) is never let through.
    await expect(
      t.s.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('clawdeck.audit_prune_workspace', ${t.ws.id}, true), set_config('clawdeck.audit_prune_before', ${future}, true)`);
        await tx.update(auditLog).set({ createdAt: new Date("2000-01-01") }).where(eq(auditLog.workspaceId, t.ws.id));
      }),
    ).rejects.toThrow();
    await expect(t.s.db.delete(workspaces).where(eq(workspaces.id, t.ws.id))).rejects.toThrow();
    expect(await count()).toBe(n);
  });
});
