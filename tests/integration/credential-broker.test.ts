import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listRoute, POST as createRoute } from "../../app/api/credentials/route";
import { DELETE as deleteRoute } from "../../app/api/credentials/[id]/route";
import { approvals, auditLog, runEvents, steps } from "../../lib/db/schema";
import { createChat } from "../../lib/chats/chats";
import { createScriptedModel, textTurn, toolTurn } from "../../lib/models/scripted";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, routeModel, suspension, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";

const SECRET = "ghp_brokerTestSecret1234567890";

describe("the credential broker: agents call APIs with credentials they never see", () => {
  const server = useTestServer();
  const seen: { host: string; path: string; authorization?: string }[] = [];
  let api: http.Server;
  let other: http.Server;
  let apiHost = "";
  let otherHost = "";

  beforeAll(async () => {
    const listen = (s: http.Server) => new Promise<string>((resolve) => s.listen(0, "127.0.0.1", () => resolve(`127.0.0.1:${(s.address() as AddressInfo).port}`)));
    const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
      seen.push({ host: req.headers.host ?? "", path: req.url ?? "", authorization: req.headers.authorization });
      // An API that echoes what it was sent, credential included, as some do.
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ you: req.headers.authorization ?? null, path: req.url }));
    };
    api = http.createServer(handler);
    other = http.createServer(handler);
    apiHost = await listen(api);
    otherHost = await listen(other);
    server().runtime.deps.fetchAllow = [apiHost, otherHost];
  });
  afterAll(async () => {
    server().runtime.deps.fetchAllow = [];
    await Promise.all([api, other].map((s) => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))));
  });

  async function setup() {
    const s = server();
    const owner = await demoOwner(s.db);
    const manager = await makeUser(s.db, owner.workspaceId, "manager");
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const cookies = { manager: await sessionCookie(s, manager), member: await sessionCookie(s, member) };
    const name = `gh${Math.random().toString(36).slice(2, 8)}`;
    const made = await createRoute(jsonRequest("/api/credentials", { method: "POST", cookie: cookies.manager, body: { name, hosts: [apiHost], value: SECRET } }));
    expect(made.status).toBe(201);
    const { credential } = (await made.json()) as { credential: { id: string } };
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "scripted", tools: ["http.request"] });
    return { s, owner, cookies, name, credentialId: credential.id, agent };
  }

  async function call(ctx: Awaited<ReturnType<typeof setup>>, input: Record<string, unknown>) {
    const { s, owner, agent } = ctx;
    routeModel(s, "scripted", createScriptedModel([toolTurn([{ id: "r1", name: "http.request", input }]), textTurn(["done"])]));
    const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    return (await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: chat.id, userId: owner.id, text: "call it" })).runId;
  }

  it("attaches the credential on the server for its host only; the value never reaches the step, the journal or the model", async () => {
    const ctx = await setup();
    const { s } = ctx;
    const runId = await call(ctx, { credential: ctx.name, url: `http://${apiHost}/user` });
    await waitForRun(s.db, runId);
    const [step] = await s.db.select().from(steps).where(eq(steps.runId, runId));
    expect(step?.status).toBe("succeeded");
    expect(seen.at(-1)).toEqual({ host: apiHost, path: "/user", authorization: `Bearer ${SECRET}` });
    // The API echoed the credential: what was stored and journaled has it redacted.
    const journal = await s.db.select({ payload: runEvents.payload }).from(runEvents).where(eq(runEvents.runId, runId)).orderBy(asc(runEvents.seq));
    expect(JSON.stringify(step)).not.toContain(SECRET);
    expect(JSON.stringify(journal)).not.toContain(SECRET);
    expect(step?.taint).toEqual(["web:127.0.0.1"]);
    // The audit log says which agent sent which credential where, never the value.
    const used = await s.db.select().from(auditLog).where(and(eq(auditLog.action, "credential.used"), eq(auditLog.actorId, ctx.agent.id)));
    expect(used.map((u) => u.detail)).toContainEqual(expect.objectContaining({ credential: ctx.name, host: apiHost, method: "GET", runId, stepId: step!.id }));
    expect(JSON.stringify(used)).not.toContain(SECRET);
  });

  it("refuses another host before any request is made, and an unknown credential by name", async () => {
    const ctx = await setup();
    const { s } = ctx;
    const before = seen.length;
    const runId = await call(ctx, { credential: ctx.name, url: `http://${otherHost}/steal` });
    await waitForRun(s.db, runId);
    const [step] = await s.db.select().from(steps).where(eq(steps.runId, runId));
    expect(step).toMatchObject({ status: "failed", error: `The credential ${ctx.name} may only be sent to ${apiHost}, not to ${otherHost}. Nothing was sent.` });
    const unknown = await call(ctx, { credential: "nope", url: `http://${apiHost}/` });
    await waitForRun(s.db, unknown);
    const [missing] = await s.db.select().from(steps).where(eq(steps.runId, unknown));
    expect(missing?.error).toMatch(/no credential named nope/);
    expect(seen.length).toBe(before);
    // Nothing was sent, so nothing is recorded as used.
    const used = await s.db.select().from(auditLog).where(eq(auditLog.action, "credential.used"));
    expect(used.filter((u) => (u.detail as { runId?: string }).runId === runId || (u.detail as { runId?: string }).runId === unknown)).toEqual([]);
  });

  it("a POST waits for a reviewer, whose card names the credential and the host, never the value", async () => {
    const ctx = await setup();
    const { s } = ctx;
    const runId = await call(ctx, { credential: ctx.name, method: "POST", url: `http://${apiHost}/repos`, body: '{"name":"x"}' });
    const approval = await suspension(s.db, runId);
    expect(approval.category).toBe("external_send");
    expect(approval.preview).toMatchObject({ fields: expect.arrayContaining([{ label: "Credential", value: ctx.name }, { label: "Host", value: apiHost }]) });
    expect(JSON.stringify(await s.db.select().from(approvals).where(and(eq(approvals.id, approval.id))))).not.toContain(SECRET);
  });

  it("lists credentials without their values, to managers only; a member may not add one; a deleted one is gone", async () => {
    const ctx = await setup();
    const list = await listRoute(jsonRequest("/api/credentials", { cookie: ctx.cookies.manager }));
    const text = await list.text();
    expect(text).toContain(ctx.name);
    expect(text).toContain(apiHost);
    expect(text).not.toContain(SECRET);
    expect((await listRoute(jsonRequest("/api/credentials", { cookie: ctx.cookies.member }))).status).toBe(403);
    const refused = await createRoute(jsonRequest("/api/credentials", { method: "POST", cookie: ctx.cookies.member, body: { name: "mine", hosts: [apiHost], value: "x" } }));
    expect(refused.status).toBe(403);
    const again = await createRoute(jsonRequest("/api/credentials", { method: "POST", cookie: ctx.cookies.manager, body: { name: ctx.name, hosts: [apiHost], value: "y" } }));
    expect([again.status, ((await again.json()) as { code: string }).code]).toEqual([409, "conflict:credential"]);
    expect((await deleteRoute(jsonRequest(`/api/credentials/${ctx.credentialId}`, { method: "DELETE", cookie: ctx.cookies.manager }), params({ id: ctx.credentialId }))).status).toBe(204);
    expect(await (await listRoute(jsonRequest("/api/credentials", { cookie: ctx.cookies.manager }))).text()).not.toContain(ctx.name);
  });
});
