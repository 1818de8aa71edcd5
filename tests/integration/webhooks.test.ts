import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as decisionRoute } from "../../app/api/approvals/[id]/decision/route";
import { DELETE as removeMemberRoute } from "../../app/api/members/[userId]/route";
import { GET as listRoute, POST as createRoute } from "../../app/api/webhooks/route";
import { DELETE as deleteRoute } from "../../app/api/webhooks/[id]/route";
import { GET as deliveriesRoute } from "../../app/api/webhooks/[id]/deliveries/route";
import { POST as retryRoute } from "../../app/api/webhooks/[id]/deliveries/[deliveryId]/retry/route";
import { POST as makeScimTokenRoute } from "../../app/api/workspace/scim-token/route";
import { approvals, auditLog } from "../../lib/db/schema";
import { claimDomain, scimClient } from "../support/scim";
import { deliverWebhooks, planWebhookEvents, runWebhooks } from "../../lib/webhooks/deliveries";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { getRunRow, makeAgent, settle } from "../support/runtime";
import { approvalSteps } from "../support/approvals";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

const BASE = "https://deck.example.test";

interface Received {
  path: string;
  id: string;
  body: string;
  headers: Record<string, string>;
}

/** A receiver on a free port that keeps every message; `answer` decides its HTTP status. */
function useReceiver(env: Record<string, string>) {
  const state = { origin: "", received: [] as Received[], answer: (_r: Received) => 204 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const message = { path: req.url ?? "", id: headers["webhook-id"] ?? "", body: Buffer.concat(chunks).toString("utf8"), headers };
      state.received.push(message);
      res.writeHead(state.answer(message)).end();
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    env.CLAWDECK_FETCH_ALLOW = "127.0.0.1";
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return state;
}

describe("webhooks: the team's own systems hear about approvals, runs and people, signed, at least once, with a log", () => {
  const env: Record<string, string> = {};
  const receiver = useReceiver(env);
  const server = useTestServer({ env });
  const { chatAs } = approvalSteps(server);

  async function team() {
    const s = server();
    const owner = await makeUser(s.db);
    const ws = await makeWorkspace(s.db, `Hooks ${crypto.randomBytes(3).toString("hex")}`, owner);
    const [max, mia] = [await makeUser(s.db, ws.id, "manager"), await makeUser(s.db, ws.id, "member")];
    const herald = await makeAgent(s.db, ws.id, { model: "offline", tools: ["slack.post"] });
    const as = async (person: { id: string; email: string; name: string }) => ({ cookie: await sessionCookie(s, person), workspace: ws.slug });
    return { s, ws, owner, max, mia, herald, as };
  }
  type Team = Awaited<ReturnType<typeof team>>;
  const sweep = (t: Team, at = new Date()) => runWebhooks(t.s.db, { encryptionKey: t.s.secrets.encryptionKey, fetchAllow: ["127.0.0.1"], baseUrl: BASE }, at);
  const forPath = (path: string) => receiver.received.filter((r) => r.path === path);
  async function ask(t: Team, text: string) {
    const runId = await chatAs(t.mia, t.ws.id, t.herald.id, text);
    return (await t.s.db.select().from(approvals).where(eq(approvals.runId, runId)))[0]!;
  }

  it("signs each message with the Standard Webhooks scheme, sends only the events chosen and only those after the endpoint was made, with ids, names and links but no chat text", async () => {
    const t = await team();
    const before = await ask(t, "slack #launch asked before the endpoint existed");
    const maxAs = await t.as(t.max);

    const byMember = await createRoute(jsonRequest("/api/webhooks", { method: "POST", ...(await t.as(t.mia)), body: { url: `${receiver.origin}/a`, events: ["run.completed"] } }));
    expect(byMember.status).toBe(403);
    for (const url of ["http://10.1.2.3/hook", "http://169.254.169.254/latest", `http://user:pw@127.0.0.1:${new URL(receiver.origin).port}/a`]) {
      const refused = await createRoute(jsonRequest("/api/webhooks", { method: "POST", ...maxAs, body: { url, events: ["run.completed"] } }));
      expect(refused.status).toBe(422);
      expect((await refused.json()).code).toBe("unprocessable:webhook_url");
    }
    const badEvent = await createRoute(jsonRequest("/api/webhooks", { method: "POST", ...maxAs, body: { url: `${receiver.origin}/a`, events: ["run.exploded"] } }));
    expect(badEvent.status).toBe(400);

    const path = `/hook-${crypto.randomBytes(3).toString("hex")}`;
    const made = await createRoute(
      jsonRequest("/api/webhooks", { method: "POST", ...maxAs, body: { url: `${receiver.origin}${path}`, events: ["approval.requested", "approval.decided", "run.completed", "member.removed"], description: "Ops bus" } }),
    );
    expect(made.status).toBe(201);
    const { webhook, secret } = await made.json();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const listed = await (await listRoute(jsonRequest("/api/webhooks", maxAs))).json();
    expect(listed.webhooks).toEqual([expect.objectContaining({ id: webhook.id, description: "Ops bus", deliveries: { delivered: 0, failed: 0, waiting: 0 } })]);
    expect(JSON.stringify(listed)).not.toContain(secret.slice(6));

    const approval = await ask(t, "slack #launch the rocket is ready");
    // The feed is written just after the run asks (its writer batches): the first sweep after that sends it.
    await settle(async () => {
      await sweep(t);
      return forPath(path).length >= 1;
    });
    const verifier = new Webhook(secret);
    const first = forPath(path);
    expect(first).toHaveLength(1);
    const requested = verifier.verify(first[0]!.body, first[0]!.headers) as { type: string; data: Record<string, unknown> };
    expect(requested).toEqual({
      type: "approval.requested",
      timestamp: expect.any(String),
      data: {
        workspace: t.ws.slug,
        approvalId: approval.id,
        runId: approval.runId,
        agent: t.herald.handle,
        tool: "slack.post",
        category: "external_send",
        title: "Post to Slack",
        url: `${BASE}/w/${t.ws.slug}/approvals?approval=${approval.id}`,
      },
    });
    expect(JSON.stringify(first)).not.toContain("the rocket is ready");
    expect(JSON.stringify(first)).not.toContain(before.id);
    // A tampered body does not verify.
    expect(() => verifier.verify(first[0]!.body.replace("slack.post", "http.fetch"), first[0]!.headers)).toThrow();

    const decided = await decisionRoute(jsonRequest(`/api/approvals/${approval.id}/decision`, { method: "POST", ...maxAs, body: { decision: "approve" } }), params({ id: approval.id }));
    expect(decided.status).toBe(200);
    await settle(async () => (await getRunRow(t.s.db, approval.runId)).state === "succeeded");
    await settle(async () => {
      await sweep(t);
      return forPath(path).length >= 3;
    });
    const types = forPath(path).map((r) => (verifier.verify(r.body, r.headers) as { type: string }).type);
    expect(types).toEqual(["approval.requested", "approval.decided", "run.completed"]);
    const completed = JSON.parse(forPath(path)[2]!.body);
    expect(completed.data).toMatchObject({ runId: approval.runId, agent: t.herald.handle, state: "succeeded", trigger: "chat", url: `${BASE}/w/${t.ws.slug}/runs/${approval.runId}` });

    const removed = await removeMemberRoute(jsonRequest(`/api/members/${t.mia.id}`, { method: "DELETE", ...(await t.as(t.owner)) }), params({ userId: t.mia.id }));
    expect(removed.status).toBe(204);
    await settle(async () => {
      await sweep(t);
      return forPath(path).length >= 4;
    });
    const last = JSON.parse(forPath(path).at(-1)!.body);
    expect(last).toMatchObject({ type: "member.removed", data: { userId: t.mia.id, email: t.mia.email, role: "member" } });
    expect(forPath(path)).toHaveLength(4);
    // Each once: sweeping again sends nothing more.
    await sweep(t);
    expect(forPath(path)).toHaveLength(4);
    expect(new Set(forPath(path).map((r) => r.id)).size).toBe(4);

    const gone = await deleteRoute(jsonRequest(`/api/webhooks/${webhook.id}`, { method: "DELETE", ...maxAs }), params({ id: webhook.id }));
    expect(gone.status).toBe(200);
    const audited = await t.s.db.select().from(auditLog).where(eq(auditLog.workspaceId, t.ws.id));
    expect(audited.map((a) => a.action)).toEqual(expect.arrayContaining(["webhook.created", "webhook.deleted"]));
  });

  it("tries a refused message again with a growing wait and the same id, keeps the receiver's answer in the log, sends it again on request, and two senders never send one message twice", async () => {
    const t = await team();
    const maxAs = await t.as(t.max);
    const path = `/flaky-${crypto.randomBytes(3).toString("hex")}`;
    const { webhook, secret } = await (await createRoute(jsonRequest("/api/webhooks", { method: "POST", ...maxAs, body: { url: `${receiver.origin}${path}`, events: ["approval.requested"] } }))).json();
    let failures = 1;
    receiver.answer = (r) => (r.path === path && failures-- > 0 ? 503 : 204);
    try {
      await ask(t, "slack #ops first");
      await settle(async () => (await planWebhookEvents(t.s.db, BASE)) === 1);
      const now = Date.now();
      await sweep(t, new Date(now));
      const log = async () => (await (await deliveriesRoute(jsonRequest(`/api/webhooks/${webhook.id}/deliveries`, maxAs), params({ id: webhook.id }))).json()).deliveries;
      const [waiting] = await log();
      expect(waiting).toMatchObject({ eventType: "approval.requested", status: "queued", attempts: 1, lastStatus: 503, lastError: "The receiver answered HTTP 503." });
      expect(new Date(waiting.dueAt).getTime()).toBe(now + 30_000);
      // Not before its time; then delivered, with the same message id as the first attempt.
      await sweep(t, new Date(now + 10_000));
      expect(forPath(path)).toHaveLength(1);
      await sweep(t, new Date(now + 31_000));
      expect(forPath(path).map((r) => r.id)).toEqual([waiting.id, waiting.id]);
      const [done] = await log();
      expect(done).toMatchObject({ status: "delivered", attempts: 2, lastStatus: 204, lastError: null });
      expect(done.lastDurationMs).toBeGreaterThanOrEqual(0);

      // "Send again": the same message, the same id.
      const again = await retryRoute(jsonRequest(`/api/webhooks/${webhook.id}/deliveries/${done.id}/retry`, { method: "POST", ...maxAs }), params({ id: webhook.id, deliveryId: done.id }));
      expect(again.status).toBe(200);
      await sweep(t);
      expect(forPath(path).map((r) => r.id)).toEqual([done.id, done.id, done.id]);
      expect(() => new Webhook(secret).verify(forPath(path)[2]!.body, forPath(path)[2]!.headers)).not.toThrow();
      const notHers = await retryRoute(
        jsonRequest(`/api/webhooks/${webhook.id}/deliveries/${crypto.randomUUID()}/retry`, { method: "POST", ...maxAs }),
        params({ id: webhook.id, deliveryId: crypto.randomUUID() }),
      );
      expect(notHers.status).toBe(404);

      // Two instances sweeping at once: each message is sent once.
      await ask(t, "slack #ops second");
      await ask(t, "slack #ops third");
      let planned = 0;
      await settle(async () => (planned += await planWebhookEvents(t.s.db, BASE)) === 2);
      const options = { encryptionKey: t.s.secrets.encryptionKey, fetchAllow: ["127.0.0.1"] };
      await Promise.all([deliverWebhooks(t.s.db, options), deliverWebhooks(t.s.db, options)]);
      expect(forPath(path)).toHaveLength(5);
      expect(new Set(forPath(path).slice(3).map((r) => r.id)).size).toBe(2);
    } finally {
      receiver.answer = () => 204;
    }
  });

  it("announces people the identity provider adds, reactivates and removes as member.added and member.removed, saying how", async () => {
    const t = await team();
    const path = `/people-${crypto.randomBytes(3).toString("hex")}`;
    const made = await createRoute(jsonRequest("/api/webhooks", { method: "POST", ...(await t.as(t.max)), body: { url: `${receiver.origin}${path}`, events: ["member.added", "member.removed"] } }));
    expect(made.status).toBe(201);
    await claimDomain(t.s.db, t.ws.id);
    const tokenRes = await makeScimTokenRoute(jsonRequest("/api/workspace/scim-token", { method: "POST", ...(await t.as(t.owner)) }));
    const scim = scimClient(((await tokenRes.json()) as { token: string }).token);
    const email = `ivy-${crypto.randomBytes(3).toString("hex")}@corp.example`;
    const created = await scim.post("/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: email, active: true });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await scim.patch(`/Users/${id}`, [{ op: "replace", value: { active: false } }])).status).toBe(200);
    expect((await scim.patch(`/Users/${id}`, [{ op: "replace", value: { active: true } }])).status).toBe(200);
    await settle(async () => {
      await sweep(t);
      return forPath(path).length >= 3;
    });
    const sent = forPath(path).map((r) => JSON.parse(r.body) as { type: string; data: { email: string; role: string; via: string } });
    expect(sent.map((m) => [m.type, m.data.email, m.data.role, m.data.via])).toEqual([
      ["member.added", email, "member", "identity_provider"],
      ["member.removed", email, "member", "identity_provider"],
      ["member.added", email, "member", "identity_provider"],
    ]);
  });
});
