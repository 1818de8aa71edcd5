import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DELETE as revokeRoute } from "../../app/api/agents/[id]/door-tokens/[tokenId]/route";
import { GET as listRoute, POST as createRoute } from "../../app/api/agents/[id]/door-tokens/route";
import { POST as decisionRoute } from "../../app/api/approvals/[id]/decision/route";
import { POST as mcpPost } from "../../app/api/mcp/route";
import { agentRuns, agents, approvals, auditLog, doorTokens, executionGrants, feedItems, memberships, outboxMessages, runEvents, steps } from "../../lib/db/schema";
import { LAPSED_GRANT_MESSAGE } from "../../lib/door/door-calls";
import { getUsageSummary } from "../../lib/billing/summary";
import { DOOR_STREAMS_PER_TOKEN } from "../../lib/door/mcp";
import { hashDoorToken } from "../../lib/door/tokens";
import { demoOwner, makeUser, makeWorkspace } from "../support/fixtures";
import { connectDoor as connect, doorTokenFor, endSession, resultText } from "../support/door";
import { makeAgent, settle } from "../support/runtime";
import { APP_ORIGIN, jsonRequest, params, sessionCookie, useTestServer } from "../support/server";



describe("the door", () => {
  const server = useTestServer({ env: { CLAWDECK_DOOR_WAIT_SECONDS: "3" } });

  async function setup(tools = ["memory.recall", "memory.remember", "slack.post"]) {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { tools });
    const cookie = await sessionCookie(s, owner);
    const made = await createRoute(jsonRequest(`/api/agents/${agent.id}/door-tokens`, { method: "POST", cookie, body: { name: "laptop" } }), params({ id: agent.id }));
    expect(made.status).toBe(201);
    const { id, token } = (await made.json()) as { id: string; token: string };
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    return { s, owner, agent, cookie, tokenId: id, token, reviewerCookie: await sessionCookie(s, reviewer) };
  }

  const outboxOf = async (agentId: string, body: string) =>
    server().db.select().from(outboxMessages).where(and(eq(outboxMessages.agentId, agentId), eq(outboxMessages.body, body)));

  const pendingApproval = (agentId: string) =>
    settle(async () => (await server().db.select().from(approvals).where(and(eq(approvals.agentId, agentId), eq(approvals.status, "pending"))))[0]);

  async function decide(approvalId: string, cookie: string, decision: "approve" | "reject", reason?: string) {
    const res = await decisionRoute(jsonRequest(`/api/approvals/${approvalId}/decision`, { method: "POST", cookie, body: { decision, ...(reason ? { reason } : {}) } }), params({ id: approvalId }));
    expect(res.status).toBe(200);
  }

  it("makes a token shown once and stored as a hash; lists it without the token; managers only", async () => {
    const { s, agent, cookie, token, tokenId } = await setup();
    expect(token).toMatch(/^cdk_[A-Za-z0-9_-]{43}$/);
    const [row] = await s.db.select().from(doorTokens).where(eq(doorTokens.id, tokenId));
    expect(row!.tokenHash).toBe(hashDoorToken(token));
    const listed = await listRoute(jsonRequest(`/api/agents/${agent.id}/door-tokens`, { cookie }), params({ id: agent.id }));
    const text = await listed.text();
    expect(text).toContain("laptop");
    expect(text).not.toContain(token);
    expect(text).not.toContain(row!.tokenHash);
    const member = await makeUser(s.db, agent.workspaceId, "member");
    const refused = await createRoute(
      jsonRequest(`/api/agents/${agent.id}/door-tokens`, { method: "POST", cookie: await sessionCookie(s, member), body: { name: "x" } }),
      params({ id: agent.id }),
    );
    expect(refused.status).toBe(403);
  });

  it("lists the agent's tools with JSON Schemas and effect annotations", async () => {
    const { token } = await setup();
    const client = await connect(token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["memory.recall", "memory.remember", "slack.post"]);
    const slack = tools.find((t) => t.name === "slack.post")!;
    expect(slack.inputSchema.type).toBe("object");
    expect(Object.keys(slack.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(["channel", "text"]));
    expect(slack.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(tools.find((t) => t.name === "memory.recall")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    await client.close();
  });

  it("runs an ungated call as a door run: journaled, tainted by the token, in the feed, counted on the token", async () => {
    const { s, agent, token, tokenId, owner } = await setup();
    const client = await connect(token);
    const result = await client.callTool({ name: "memory.remember", arguments: { text: "the door works" } });
    expect(result.isError).toBeFalsy();
    await endSession(client);
    const [run] = await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id));
    expect(run).toMatchObject({ trigger: "door", state: "succeeded", onBehalfOfUserId: owner.id, via: ["door:laptop"] });
    expect(run!.taint).toEqual([{ source: "door:laptop", stepId: null }]);
    const [step] = await s.db.select().from(steps).where(eq(steps.runId, run!.id));
    expect(step).toMatchObject({ tool: "memory.remember", status: "succeeded" });
    const feed = await s.db.select().from(feedItems).where(eq(feedItems.runId, run!.id));
    expect(feed.map((f) => f.kind).sort()).toEqual(["run_finished", "run_started"]);
    const [counted] = await s.db.select().from(doorTokens).where(eq(doorTokens.id, tokenId));
    expect(counted!.callCount).toBe(1);
    expect(counted!.lastUsedAt).not.toBeNull();
    const used = await s.db.select().from(auditLog).where(and(eq(auditLog.action, "door_token.used"), eq(auditLog.targetId, tokenId)));
    expect(used).toEqual([expect.objectContaining({ actorKind: "agent", actorId: agent.id, detail: expect.objectContaining({ token: "laptop", runId: run!.id, session: true }) })]);
    const summary = await getUsageSummary(s.db, agent.workspaceId, { from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 3_600_000), includeSpend: false });
    expect(summary.activity.doorCalls).toBeGreaterThanOrEqual(1);
    expect(summary.activity.toolCalls).toBeGreaterThanOrEqual(summary.activity.doorCalls);
    await client.close();
  });

  it("waits on a gated call, sending progress; the reviewer approves and the effect happens once", async () => {
    const { agent, token, reviewerCookie } = await setup();
    const client = await connect(token);
    const progress: number[] = [];
    const call = client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "approved hello" } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
      resetTimeoutOnProgress: true,
    });
    const approval = await pendingApproval(agent.id);
    expect(approval).toMatchObject({ category: "tainted_egress", via: ["door:laptop"] });
    expect(approval.taintSources).toEqual([{ source: "door:laptop", stepId: null }]);
    // While it waits, the client hears that it is waiting (decided before the door began to wait, it would not).
    await settle(async () => progress.length > 0);
    await decide(approval.id, reviewerCookie, "approve");
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain("outbox");
    expect(await outboxOf(agent.id, "approved hello")).toHaveLength(1);
    await client.close();
  });

  it("returns the reviewer's reason when the call is rejected, and nothing is sent", async () => {
    const { agent, token, reviewerCookie } = await setup();
    const client = await connect(token);
    const call = client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "rejected hello" } });
    const approval = await pendingApproval(agent.id);
    await decide(approval.id, reviewerCookie, "reject", "not this channel");
    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain("not this channel");
    expect(await outboxOf(agent.id, "rejected hello")).toHaveLength(0);
    await client.close();
  });

  it("names the approval when no decision came in time; 20 concurrent repeats after approval send once", async () => {
    const { s, agent, token, reviewerCookie } = await setup();
    const client = await connect(token);
    const args = { channel: "#general", text: "repeat hello" };
    const first = await client.callTool({ name: "slack.post", arguments: args });
    expect(first.isError).toBe(true);
    const approval = await pendingApproval(agent.id);
    expect(resultText(first)).toContain(approval.id);
    await decide(approval.id, reviewerCookie, "approve");
    const repeats = await Promise.allSettled(Array.from({ length: 20 }, () => client.callTool({ name: "slack.post", arguments: args })));
    const sent = repeats.filter((r) => r.status === "fulfilled" && !r.value.isError);
    expect(sent).toHaveLength(1);
    // Every other repeat did nothing: told the grant was used (or that it asks again), or, while the
    // session was held by another call for longer than the wait, that the session is busy, or, past the requests
    // one token may hold open at once, refused before it was read.
    for (const r of repeats) {
      if (r.status === "rejected") expect(String(r.reason)).toMatch(/still busy with another call|rate_limited:door_streams/);
    }
    expect(repeats.filter((r) => r.status === "rejected" && /rate_limited:door_streams/.test(String(r.reason))).length).toBeLessThanOrEqual(20 - DOOR_STREAMS_PER_TOKEN);
    expect(await outboxOf(agent.id, "repeat hello")).toHaveLength(1);
    const [used] = await s.db.select().from(approvals).where(eq(approvals.id, approval.id));
    expect(used!.resumedAt).not.toBeNull();
    await client.close();
  });

  it("never lets another token of the same agent use a grant asked through a different token", async () => {
    const { s, owner, agent, token, reviewerCookie } = await setup();
    const args = { channel: "#general", text: "whose grant" };
    const laptop = await connect(token);
    expect((await laptop.callTool({ name: "slack.post", arguments: args })).isError).toBe(true);
    const approval = await pendingApproval(agent.id);
    await decide(approval.id, reviewerCookie, "approve");
    const other = await connect(await doorTokenFor(s.db, agent, owner.id, "desktop"));
    const stranger = await other.callTool({ name: "slack.post", arguments: args });
    expect(stranger.isError).toBe(true);
    expect(resultText(stranger)).not.toContain(approval.id);
    expect(await outboxOf(agent.id, "whose grant")).toHaveLength(0);
    const [unused] = await s.db.select().from(approvals).where(eq(approvals.id, approval.id));
    expect(unused!.resumedAt).toBeNull();
    const asked = await s.db.select().from(approvals).where(eq(approvals.agentId, agent.id));
    expect(asked).toHaveLength(2);
    const owned = await laptop.callTool({ name: "slack.post", arguments: args });
    expect(owned.isError).toBeFalsy();
    expect(await outboxOf(agent.id, "whose grant")).toHaveLength(1);
    await Promise.all([laptop.close(), other.close()]);
  });

  it("ends an approved call nobody repeated once its grant lapses, saying why; a later repeat asks again", async () => {
    const { s, agent, token, reviewerCookie } = await setup();
    let client = await connect(token);
    const args = { channel: "#general", text: "forgotten" };
    expect((await client.callTool({ name: "slack.post", arguments: args })).isError).toBe(true);
    const approval = await pendingApproval(agent.id);
    await decide(approval.id, reviewerCookie, "approve");
    await s.runtime.sweep();
    expect((await s.db.select().from(agentRuns).where(eq(agentRuns.id, approval.runId)))[0]!.state).toBe("suspended");
    await s.db.update(executionGrants).set({ expiresAt: new Date(Date.now() - 1_000) }).where(eq(executionGrants.approvalId, approval.id));
    await s.runtime.sweep();
    const [run] = await s.db.select().from(agentRuns).where(eq(agentRuns.id, approval.runId));
    expect(run).toMatchObject({ state: "failed", errorCode: "door:grant_lapsed", error: LAPSED_GRANT_MESSAGE });
    const ended = await s.db.select().from(runEvents).where(and(eq(runEvents.runId, run!.id), eq(runEvents.type, "run_failed")));
    expect(ended).toHaveLength(1);
    expect(ended[0]!.payload).toMatchObject({ code: "door:grant_lapsed" });
    // Its session ended with its run: the client starts a new one.
    await expect(client.callTool({ name: "slack.post", arguments: args })).rejects.toThrow(/Session not found/);
    await client.close();
    client = await connect(token);
    const again = await client.callTool({ name: "slack.post", arguments: args });
    expect(again.isError).toBe(true);
    expect(resultText(again)).not.toContain(approval.id);
    expect(await outboxOf(agent.id, "forgotten")).toHaveLength(0);
    await client.close();
  });

  it("refuses revoked, expired, malformed, unknown and other-workspace tokens with 401 and runs nothing", async () => {
    const { s, owner, agent, cookie, token, tokenId } = await setup();
    const post = (bearer: string) =>
      mcpPost(
        new Request(new URL("/api/mcp", APP_ORIGIN), {
          method: "POST",
          headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "memory.remember", arguments: { text: "x" } } }),
        }),
      );
    const other = await makeWorkspace(s.db, "Elsewhere", await makeUser(s.db));
    const otherAgent = await makeAgent(s.db, other.id);
    // A token whose row claims another workspace's agent: it acts nowhere.
    const forged = "cdk_" + "A".repeat(43);
    await s.db.insert(doorTokens).values({ workspaceId: agent.workspaceId, agentId: otherAgent.id, name: "forged", tokenHash: hashDoorToken(forged), prefix: "cdk_AAAA", createdByUserId: owner.id });
    const expired = "cdk_" + "B".repeat(43);
    await s.db.insert(doorTokens).values({ workspaceId: agent.workspaceId, agentId: agent.id, name: "old", tokenHash: hashDoorToken(expired), prefix: "cdk_BBBB", createdByUserId: owner.id, expiresAt: new Date(Date.now() - 1000) });
    const revoked = await revokeRoute(jsonRequest(`/api/agents/${agent.id}/door-tokens/${tokenId}`, { method: "DELETE", cookie }), params({ id: agent.id, tokenId }));
    expect(revoked.status).toBe(204);
    for (const bearer of [token, expired, forged, "cdk_short", "not-a-token", "cdk_" + "C".repeat(43)]) {
      const res = await post(bearer);
      expect(res.status).toBe(401);
      const body = (await res.json()) as { jsonrpc: string; error: { code: number } };
      expect(body.jsonrpc).toBe("2.0");
      expect(body.error.code).toBe(-32001);
    }
    expect(await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id))).toHaveLength(0);
    expect(await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, otherAgent.id))).toHaveLength(0);
  });

  it("stops a token once the manager who made it is demoted or removed", async () => {
    const { s, agent } = await setup();
    const manager = await makeUser(s.db, agent.workspaceId, "manager");
    const token = await doorTokenFor(s.db, agent, manager.id, "managers-laptop");
    const list = (bearer: string) =>
      mcpPost(
        new Request(new URL("/api/mcp", APP_ORIGIN), {
          method: "POST",
          headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
        }),
      );
    expect((await list(token)).status).toBe(200);
    const membership = and(eq(memberships.workspaceId, agent.workspaceId), eq(memberships.userId, manager.id));
    await s.db.update(memberships).set({ role: "member" }).where(membership);
    expect((await list(token)).status).toBe(401);
    await s.db.update(memberships).set({ role: "manager" }).where(membership);
    expect((await list(token)).status).toBe(200);
    await s.db.delete(memberships).where(membership);
    expect((await list(token)).status).toBe(401);
  });

  it("refuses input with a NUL character before anything runs", async () => {
    const { s, agent, token } = await setup();
    const client = await connect(token);
    await expect(client.callTool({ name: "memory.remember", arguments: { text: "a\u0000b" } })).rejects.toThrow(/NUL character/);
    // The session's run exists from `initialize`; no step was taken.
    const runs = await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id));
    expect(runs).toHaveLength(1);
    expect(await s.db.select().from(steps).where(eq(steps.runId, runs[0]!.id))).toHaveLength(0);
    await client.close();
  });

  it("answers a paused agent's token with a clear error and runs nothing", async () => {
    const { s, agent, token } = await setup();
    await s.db.update(agents).set({ status: "paused" }).where(eq(agents.id, agent.id));
    const client = await connect(token);
    await expect(client.callTool({ name: "memory.remember", arguments: { text: "x" } })).rejects.toThrow(/paused/);
    expect(await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id))).toHaveLength(0);
    await client.close();
  });

  it("limits a token like a person's runs (30 per minute by default; opening a session counts as one): the next call is refused and does not run", async () => {
    const { s, agent, token } = await setup();
    const client = await connect(token);
    for (let i = 0; i < 29; i++) expect((await client.callTool({ name: "memory.recall", arguments: { query: `q${i}` } })).isError).toBeFalsy();
    await expect(client.callTool({ name: "memory.recall", arguments: { query: "one too many" } })).rejects.toThrow(/runs in 60 s/);
    const runs = await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id));
    expect(runs).toHaveLength(1);
    expect(await s.db.select().from(steps).where(eq(steps.runId, runs[0]!.id))).toHaveLength(29);
    await client.close();
  });
});
