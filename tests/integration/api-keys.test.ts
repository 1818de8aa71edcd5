import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as listKeysRoute, POST as createKeyRoute } from "../../app/api/api-keys/route";
import { DELETE as revokeKeyRoute } from "../../app/api/api-keys/[id]/route";
import { GET as agentsRoute, POST as createAgentRoute } from "../../app/api/agents/route";
import { GET as approvalsStreamRoute } from "../../app/api/approvals/stream/route";
import { POST as createChatRoute } from "../../app/api/sessions/route";
import { POST as postMessageRoute } from "../../app/api/sessions/[id]/messages/route";
import { GET as webhooksRoute } from "../../app/api/webhooks/route";
import { GET as workspacesRoute } from "../../app/api/workspaces/route";
import { POST as mcpRoute } from "../../app/api/mcp/route";
import { apiKeys, auditLog, sessions as chatSessions, memberships } from "../../lib/db/schema";
import { STREAM_ERROR_EVENT } from "../../lib/errors";
import { approvalsTopic } from "../../lib/safety/approvals";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { readFrames } from "../support/sse";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

/** A request a script sends: the key as a bearer token, no cookie and no Origin header. */
const byKey = (key: string, url: string, init: { method?: string; body?: unknown; workspace?: string } = {}) => {
  const req = jsonRequest(url, { ...init, headers: { authorization: `Bearer ${key}` } });
  req.headers.delete("origin");
  return req;
};

const RECHECK_SECONDS = 1;

describe("API keys: scripts act on their maker's behalf, with the key's role, until it is revoked, expires or its maker leaves", () => {
  const server = useTestServer({ env: { CLAWDECK_STREAM_RECHECK_SECONDS: String(RECHECK_SECONDS) } });

  async function setup() {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, `Keys ${Date.now()}`, owner);
    const rita = await makeUser(s.db, ws.id, "manager");
    const mia = await makeUser(s.db, ws.id, "member");
    const ritaAs = { cookie: await sessionCookie(s, rita), workspace: ws.slug };
    const make = async (body: Record<string, unknown>, as = ritaAs) => createKeyRoute(jsonRequest("/api/api-keys", { method: "POST", body, ...as }));
    const makeKey = async (body: Record<string, unknown>) => {
      const res = await make(body);
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; key: string };
    };
    return { s, ws, owner, rita, mia, ritaAs, make, makeKey };
  }

  it("is made by managers and owners with a role no higher than their own, shown once and stored only as a hash", async () => {
    const t = await setup();
    const miaAs = { cookie: await sessionCookie(t.s, t.mia), workspace: t.ws.slug };
    expect((await t.make({ name: "mine", role: "member" }, miaAs)).status).toBe(403);
    const tooHigh = await t.make({ name: "boss", role: "owner" });
    expect(tooHigh.status).toBe(403);
    expect((await tooHigh.json()).code).toBe("forbidden:api_key_role");
    expect((await t.make({ name: "", role: "member" })).status).toBe(400);
    expect((await t.make({ name: "old", role: "member", expiresAt: "2020-01-01T00:00:00Z" })).status).toBe(400);

    const made = await t.makeKey({ name: "nightly report", role: "reviewer" });
    expect(made.key).toMatch(/^ck_[A-Za-z0-9_-]{43}$/);
    const [row] = await t.s.db.select().from(apiKeys).where(eq(apiKeys.id, made.id));
    expect(row!.keyHash).not.toContain(made.key);
    expect(JSON.stringify(row)).not.toContain(made.key.slice(3));
    const list = await (await listKeysRoute(jsonRequest("/api/api-keys", t.ritaAs))).json();
    expect(list.keys).toEqual([expect.objectContaining({ id: made.id, name: "nightly report", role: "reviewer", prefix: made.key.slice(0, 7), lastUsedAt: null })]);
    expect(JSON.stringify(list)).not.toContain(made.key);
    const [audited] = await t.s.db.select().from(auditLog).where(eq(auditLog.targetId, made.id));
    expect(audited).toMatchObject({ action: "api_key.created", actorId: t.rita.id, detail: { name: "nightly report", role: "reviewer" } });
  });

  it("works as a bearer token on the workspace's routes, without a cookie or an Origin, with the key's role and on its maker's behalf; the audit log names the key", async () => {
    const t = await setup();
    const reviewerKey = await t.makeKey({ name: "nightly report", role: "reviewer" });
    const agents = await agentsRoute(byKey(reviewerKey.key, "/api/agents"));
    expect(agents.status).toBe(200);
    // A manager's key made with the reviewer role has the reviewer's rights, not the manager's.
    const hooks = await webhooksRoute(byKey(reviewerKey.key, "/api/webhooks"));
    expect(hooks.status).toBe(403);
    expect((await hooks.json()).code).toBe("forbidden:role");

    const managerKey = await t.makeKey({ name: "provisioner", role: "manager" });
    const agent = await createAgentRoute(byKey(managerKey.key, "/api/agents", { method: "POST", body: { handle: "scripted-agent", name: "Scripted", model: "offline" } }));
    expect(agent.status).toBe(201);
    const agentId = ((await agent.json()) as { agent: { id: string } }).agent.id;
    const [entry] = await t.s.db.select().from(auditLog).where(eq(auditLog.targetId, agentId));
    expect(entry).toMatchObject({ action: "agent.created", actorKind: "user", actorId: t.rita.id, detail: { apiKey: { id: managerKey.id, name: "provisioner" } } });

    // A chat started with a key is its maker's.
    const chat = await createChatRoute(byKey(managerKey.key, "/api/sessions", { method: "POST", body: { agentId } }));
    expect(chat.status).toBe(201);
    const [chatRow] = await t.s.db.select().from(chatSessions).where(eq(chatSessions.id, ((await chat.json()) as { id: string }).id));
    expect(chatRow!.userId).toBe(t.rita.id);

    const [used] = await t.s.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, managerKey.id));
    expect(used!.at).toBeInstanceOf(Date);
  });

  it("never makes keys, serves a person's own routes, or opens the door; another workspace's name and a key-shaped stranger are refused; no cookie is read beside a key", async () => {
    const t = await setup();
    const { key } = await t.makeKey({ name: "script", role: "manager" });
    const minted = await createKeyRoute(byKey(key, "/api/api-keys", { method: "POST", body: { name: "child", role: "member" } }));
    expect(minted.status).toBe(403);
    expect(await minted.json()).toMatchObject({ code: "forbidden:api_key_scope", message: expect.stringMatching(/^This cannot be done with an API key/) });
    expect((await listKeysRoute(byKey(key, "/api/api-keys"))).status).toBe(403);
    const mine = await workspacesRoute(byKey(key, "/api/workspaces"));
    expect(mine.status).toBe(403);
    expect((await mine.json()).code).toBe("forbidden:api_key_scope");
    const door = await mcpRoute(byKey(key, "/api/mcp", { method: "POST", body: { jsonrpc: "2.0", id: 1, method: "initialize", params: {} } }));
    expect(door.status).toBe(401);

    const other = await makeWorkspace(t.s.db, `Other ${Date.now()}`, t.rita);
    const elsewhere = await agentsRoute(byKey(key, "/api/agents", { workspace: other.slug }));
    expect(elsewhere.status).toBe(403);
    expect((await elsewhere.json()).code).toBe("forbidden:workspace");

    const stranger = `ck_${"A".repeat(43)}`;
    for (const bad of [stranger, "not-a-key", `${key}x`]) {
      const res = await agentsRoute(byKey(bad, "/api/agents"));
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: "unauthorized:api_key", message: expect.stringMatching(/^This API key is not valid/) });
    }
    // A valid session cookie beside a wrong key does not rescue it.
    const both = jsonRequest("/api/agents", { ...t.ritaAs, headers: { authorization: `Bearer ${stranger}` } });
    expect((await agentsRoute(both)).status).toBe(401);
  });

  it("stops at once when revoked, when it expires, or when its maker leaves; a demoted maker's key loses the rights they lost", async () => {
    const t = await setup();
    const revoked = await t.makeKey({ name: "revoked", role: "member" });
    expect((await agentsRoute(byKey(revoked.key, "/api/agents"))).status).toBe(200);
    const gone = await revokeKeyRoute(jsonRequest(`/api/api-keys/${revoked.id}`, { method: "DELETE", ...t.ritaAs }), params({ id: revoked.id }));
    expect(gone.status).toBe(200);
    expect((await agentsRoute(byKey(revoked.key, "/api/agents"))).status).toBe(401);
    expect((await t.s.db.select().from(auditLog).where(eq(auditLog.targetId, revoked.id))).map((e) => e.action).sort()).toEqual(["api_key.created", "api_key.revoked"]);
    const missing = crypto.randomUUID();
    expect((await revokeKeyRoute(jsonRequest(`/api/api-keys/${missing}`, { method: "DELETE", ...t.ritaAs }), params({ id: missing }))).status).toBe(404);

    const expiring = await t.makeKey({ name: "expiring", role: "member" });
    await t.s.db.update(apiKeys).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(apiKeys.id, expiring.id));
    expect((await agentsRoute(byKey(expiring.key, "/api/agents"))).status).toBe(401);

    const demoted = await t.makeKey({ name: "demoted", role: "manager" });
    expect((await webhooksRoute(byKey(demoted.key, "/api/webhooks"))).status).toBe(200);
    await t.s.db.update(memberships).set({ role: "member" }).where(eq(memberships.userId, t.rita.id));
    expect((await webhooksRoute(byKey(demoted.key, "/api/webhooks"))).status).toBe(403);
    expect((await agentsRoute(byKey(demoted.key, "/api/agents"))).status).toBe(200);
    await t.s.db.delete(memberships).where(eq(memberships.userId, t.rita.id));
    expect((await agentsRoute(byKey(demoted.key, "/api/agents"))).status).toBe(401);
  });

  it("an open event stream made with a key ends once the key is revoked", async () => {
    const t = await setup();
    const made = await t.makeKey({ name: "watcher", role: "reviewer" });
    const stream = await approvalsStreamRoute(byKey(made.key, "/api/approvals/stream"));
    expect(stream.status).toBe(200);
    const frames = readFrames(stream, (f) => f.some((x) => x.event === STREAM_ERROR_EVENT));
    await revokeKeyRoute(jsonRequest(`/api/api-keys/${made.id}`, { method: "DELETE", ...t.ritaAs }), params({ id: made.id }));
    // Past the recheck interval, the next event finds the key revoked and ends the stream instead of sending it.
    await new Promise((resolve) => setTimeout(resolve, RECHECK_SECONDS * 1000 + 100));
    await t.s.bus.publish(approvalsTopic(t.ws.id), { approvalId: "x", status: "pending" });
    const read = await frames;
    expect(read.at(-1)?.event).toBe(STREAM_ERROR_EVENT);
    expect(read.filter((f) => f.event === "approvals")).toHaveLength(1);
  }, 30_000);

  it("counts a key's runs against its maker's limit: the script and the person share one allowance", async () => {
    const t = await setup();
    const { key } = await t.makeKey({ name: "busy script", role: "member" });
    const agent = await createAgentRoute(jsonRequest("/api/agents", { method: "POST", ...t.ritaAs, body: { handle: `limited-${Date.now().toString(36)}`, name: "Limited", model: "offline" } }));
    const agentId = ((await agent.json()) as { agent: { id: string } }).agent.id;
    const s = t.s;
    const before = { limit: s.env.CLAWDECK_RUN_START_LIMIT, window: s.env.CLAWDECK_RUN_START_WINDOW_SECONDS };
    s.env.CLAWDECK_RUN_START_LIMIT = 2;
    s.env.CLAWDECK_RUN_START_WINDOW_SECONDS = 600;
    try {
      const chatBy = async (req: Request) => ((await (await createChatRoute(req)).json()) as { id: string }).id;
      const send = (req: (id: string) => Request, id: string) => postMessageRoute(req(id), params({ id }));
      const viaKey = (id: string) => byKey(key, `/api/sessions/${id}/messages`, { method: "POST", body: { text: "hello" } });
      const viaCookie = (id: string) => jsonRequest(`/api/sessions/${id}/messages`, { method: "POST", ...t.ritaAs, body: { text: "hello" } });
      expect((await send(viaKey, await chatBy(byKey(key, "/api/sessions", { method: "POST", body: { agentId } })))).status).toBe(202);
      expect((await send(viaCookie, await chatBy(jsonRequest("/api/sessions", { method: "POST", ...t.ritaAs, body: { agentId } })))).status).toBe(202);
      // The allowance is spent, by the script and the person together: the next start is refused either way.
      const refused = await send(viaKey, await chatBy(byKey(key, "/api/sessions", { method: "POST", body: { agentId } })));
      expect([refused.status, ((await refused.json()) as { code: string }).code]).toEqual([429, "rate_limited:runs"]);
      expect((await send(viaCookie, await chatBy(jsonRequest("/api/sessions", { method: "POST", ...t.ritaAs, body: { agentId } })))).status).toBe(429);
    } finally {
      s.env.CLAWDECK_RUN_START_LIMIT = before.limit;
      s.env.CLAWDECK_RUN_START_WINDOW_SECONDS = before.window;
    }
  });
});
