import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as listRoute } from "../../app/api/approvals/route";
import { GET as getRoute, PUT as putRoute } from "../../app/api/governor/route";
import { approvals, auditLog, feedItems, outboxMessages, usageEvents } from "../../lib/db/schema";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import type { ModelEvent, ModelProvider } from "../../lib/models/types";
import { createChat } from "../../lib/chats/chats";
import { updateGovernor, type GovernorSettings } from "../../lib/safety/governor";
import { connectDoor, doorTokenFor, resultText } from "../support/door";
import { demoOwner, makeUser } from "../support/fixtures";
import { makeAgent, routeModel, useScriptedModel, waitForRun } from "../support/runtime";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";


/** A judge model that answers with the given text, fails, or never answers. */
function judgeProvider(behaviour: { text: string } | { fail: string } | "hang"): ModelProvider {
  return {
    name: "judge-test",
    async *stream(request): AsyncIterable<ModelEvent> {
      if (behaviour === "hang") {
        await new Promise((resolve) => request.signal?.addEventListener("abort", resolve));
        throw new Error("aborted");
      }
      if ("fail" in behaviour) throw new Error(behaviour.fail);
      yield { type: "usage", usage: { inputTokens: 120, outputTokens: 30 } };
      yield { type: "text", delta: behaviour.text };
      yield { type: "stop", reason: "end_turn" };
    },
  };
}

/** How long this file's server lets a gated call through the door wait, unless the workspace says otherwise. */
const DOOR_WAIT_SECONDS = 2;

describe("the governor", () => {
  const server = useTestServer({ env: { CLAWDECK_DOOR_WAIT_SECONDS: String(DOOR_WAIT_SECONDS) } });

  async function setup(governor: Partial<GovernorSettings>) {
    const s = server();
    const owner = await demoOwner(s.db);
    await updateGovernor(s.db, owner.workspaceId, owner.id, { modes: {}, judgeModel: null, judgeTimeoutSeconds: 30, failOpen: false, doorWaitSeconds: null, ...governor }, () => null);
    const agent = await makeAgent(s.db, owner.workspaceId, { tools: ["slack.post", "memory.recall"] });
    return { s, owner, agent };
  }

  const outbox = async (agentId: string) => server().db.select().from(outboxMessages).where(eq(outboxMessages.agentId, agentId));
  const approvalOf = async (agentId: string) => (await server().db.select().from(approvals).where(eq(approvals.agentId, agentId)))[0]!;

  it("decides an agent's own untainted send when the judge allows: the run carries on, the verdict is recorded, audited, in the feed and charged", async () => {
    const { s, owner, agent } = await setup({ modes: { external_send: "judge" }, judgeModel: "judge-allow" });
    routeModel(s, "judge-allow", judgeProvider({ text: '{"decision": "allow", "reason": "A plain greeting to #general."}' }));
    useScriptedModel(s, [toolTurn([{ id: "c1", name: "slack.post", input: { channel: "#general", text: "good morning" } }], "Posting."), textTurn(["Posted."])]);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "post" });
    await waitForRun(s.db, runId);
    await s.runtime.drain();
    const approval = await approvalOf(agent.id);
    expect(approval).toMatchObject({ status: "approved", decidedByUserId: null });
    expect(approval.judgeVerdict).toMatchObject({ verdict: "allow", model: "judge-allow", mode: "judge", decided: true, reason: "A plain greeting to #general." });
    expect((await outbox(agent.id)).map((m) => m.body)).toEqual(["good morning"]);
    const audit = await s.db.select().from(auditLog).where(and(eq(auditLog.targetId, approval.id), eq(auditLog.action, "approval.approved")));
    expect(audit[0]?.actorKind).toBe("governor");
    const feed = await s.db.select().from(feedItems).where(and(eq(feedItems.approvalId, approval.id), eq(feedItems.kind, "approval_decided")));
    expect(feed[0]?.payload).toMatchObject({ decidedBy: "judge", status: "approved" });
    const charged = await s.db.select().from(usageEvents).where(and(eq(usageEvents.sourceKind, "governor"), eq(usageEvents.sourceId, approval.id)));
    expect(charged).toHaveLength(1);
    expect(charged[0]).toMatchObject({ inputTokens: 120, outputTokens: 30, model: "judge-allow" });
  });

  it("refuses a door call the offline judge denies (it passes on untrusted content); the client gets the reason, nothing is sent", async () => {
    const { s, owner, agent } = await setup({ modes: { tainted_egress: "judge" }, judgeModel: "offline" });
    const client = await connectDoor(await doorTokenFor(s.db, agent, owner.id));
    const result = await client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "from outside" } });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain("untrusted sources (door:laptop)");
    expect(await outbox(agent.id)).toHaveLength(0);
    const approval = await approvalOf(agent.id);
    expect(approval).toMatchObject({ status: "rejected" });
    expect(approval.judgeVerdict).toMatchObject({ verdict: "deny", model: "offline", decided: true });
    expect(await s.db.select().from(usageEvents).where(eq(usageEvents.sourceId, approval.id))).toHaveLength(1);
    await client.close();
  });

  it("judge first, then people: an allow still waits for a person, with the verdict on the request", async () => {
    const { s, agent, owner } = await setup({ modes: { tainted_egress: "judge_then_people" }, judgeModel: "judge-allow2" });
    routeModel(s, "judge-allow2", judgeProvider({ text: '```json\n{"decision": "allow", "reason": "Looks fine."}\n```' }));
    const client = await connectDoor(await doorTokenFor(s.db, agent, owner.id));
    const result = await client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "waits" } });
    expect(result.isError).toBe(true);
    const approval = await approvalOf(agent.id);
    expect(resultText(result)).toContain(approval.id);
    expect(approval.status).toBe("pending");
    expect(approval.judgeVerdict).toMatchObject({ verdict: "allow", decided: false, mode: "judge_then_people" });
    // The reviewer's inbox carries the verdict to the card.
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    const listed = (await (await listRoute(jsonRequest("/api/approvals?status=pending", { cookie: await sessionCookie(s, reviewer) }))).json()) as {
      approvals: { id: string; judgeVerdict: unknown }[];
    };
    expect(listed.approvals.find((a) => a.id === approval.id)?.judgeVerdict).toMatchObject({ verdict: "allow", reason: "Looks fine.", decided: false });
    expect(await outbox(agent.id)).toHaveLength(0);
    await client.close();
  });

  for (const [label, behaviour] of [
    ["errors", { fail: "provider exploded" }],
    ["times out", "hang"],
    ["answers prose", { text: "I think it is probably fine." }],
  ] as const) {
    it(`fails closed when the judge ${label}: the call is refused, nothing is sent`, async () => {
      const spec = `judge-${label.replace(/\W/g, "")}`;
      const { s, agent, owner } = await setup({ modes: { tainted_egress: "judge" }, judgeModel: spec, judgeTimeoutSeconds: 1 });
      routeModel(s, spec, judgeProvider(behaviour));
      const client = await connectDoor(await doorTokenFor(s.db, agent, owner.id));
      const result = await client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "closed" } });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain("fail closed");
      expect(await outbox(agent.id)).toHaveLength(0);
      expect((await approvalOf(agent.id)).judgeVerdict).toMatchObject({ verdict: "no_answer", decided: true, failOpen: false });
      await client.close();
    });
  }

  for (const [label, text] of [
    ["prose", "I think it is probably fine, go ahead."],
    ["a verdict inside prose", 'Sure. {"decision": "allow", "reason": "Looks fine."}'],
    ["a malformed verdict", '{"decision": "yes", "reason": "fine"}'],
  ] as const) {
    it(`refuses a call when the judge answers ${label}, even where the workspace fails open: only an outage may be failed open`, async () => {
      const spec = `judge-open-${label.replace(/\W/g, "")}`;
      const { s, agent, owner } = await setup({ modes: { tainted_egress: "judge" }, judgeModel: spec, failOpen: true });
      routeModel(s, spec, judgeProvider({ text }));
      const client = await connectDoor(await doorTokenFor(s.db, agent, owner.id));
      const result = await client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "rambled" } });
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain("was not a verdict");
      expect(await outbox(agent.id)).toHaveLength(0);
      expect(await approvalOf(agent.id)).toMatchObject({ status: "rejected", judgeVerdict: expect.objectContaining({ verdict: "no_answer", failOpen: true }) });
      await client.close();
    });
  }

  it("lets a call through without a verdict only when the workspace fails open", async () => {
    const { s, agent, owner } = await setup({ modes: { tainted_egress: "judge" }, judgeModel: "judge-broken", failOpen: true });
    routeModel(s, "judge-broken", judgeProvider({ fail: "down" }));
    const client = await connectDoor(await doorTokenFor(s.db, agent, owner.id));
    const result = await client.callTool({ name: "slack.post", arguments: { channel: "#general", text: "open" } });
    expect(result.isError).toBeFalsy();
    expect((await outbox(agent.id)).map((m) => m.body)).toEqual(["open"]);
    expect(await approvalOf(agent.id)).toMatchObject({ status: "approved", judgeVerdict: expect.objectContaining({ verdict: "no_answer", failOpen: true }) });
    await client.close();
  });

  it("is read by members and changed by managers only, with the input validated", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const memberCookie = await sessionCookie(s, member);
    const ownerCookie = await sessionCookie(s, owner);
    const body = { modes: { spend: "judge_then_people" }, judgeModel: "offline", judgeTimeoutSeconds: 20, failOpen: false, doorWaitSeconds: 45 };
    expect((await getRoute(jsonRequest("/api/governor", { cookie: memberCookie }))).status).toBe(200);
    expect((await putRoute(jsonRequest("/api/governor", { method: "PUT", cookie: memberCookie, body }))).status).toBe(403);
    expect((await putRoute(jsonRequest("/api/governor", { method: "PUT", cookie: ownerCookie, body: { ...body, modes: { spend: "coin_flip" } } }))).status).toBe(400);
    for (const doorWaitSeconds of [0, 601, 2.5, "60"]) {
      expect((await putRoute(jsonRequest("/api/governor", { method: "PUT", cookie: ownerCookie, body: { ...body, doorWaitSeconds } }))).status).toBe(400);
    }
    const unset = (await (await getRoute(jsonRequest("/api/governor", { cookie: memberCookie }))).json()) as { governor: GovernorSettings; defaults: { doorWaitSeconds: number } };
    expect(unset).toMatchObject({ governor: { doorWaitSeconds: null }, defaults: { doorWaitSeconds: DOOR_WAIT_SECONDS } });
    const saved = await putRoute(jsonRequest("/api/governor", { method: "PUT", cookie: ownerCookie, body }));
    expect(saved.status).toBe(200);
    const read = (await (await getRoute(jsonRequest("/api/governor", { cookie: memberCookie }))).json()) as { governor: GovernorSettings };
    expect(read.governor).toEqual(body);
  });

  it("makes the door wait as long as the workspace says, else as long as the server's default", async () => {
    const { s, agent, owner } = await setup({});
    const token = await doorTokenFor(s.db, agent, owner.id);
    const totals = async (text: string) => {
      const seen: number[] = [];
      // A new session each time: a session whose call waits on a reviewer takes no other call meanwhile.
      const client = await connectDoor(token);
      const result = await client.callTool({ name: "slack.post", arguments: { channel: "#general", text } }, undefined, { onprogress: (p) => void seen.push(p.total ?? -1) });
      expect(result.isError).toBe(true);
      await client.close();
      return seen;
    };
    // Unset: the server's default (CLAWDECK_DOOR_WAIT_SECONDS).
    expect((await totals("first"))[0]).toBe(DOOR_WAIT_SECONDS * 1000);
    await updateGovernor(s.db, owner.workspaceId, owner.id, { modes: {}, judgeModel: null, judgeTimeoutSeconds: 30, failOpen: false, doorWaitSeconds: 1 }, () => null);
    const second = await totals("second");
    expect(second.length).toBeGreaterThan(0);
    expect(new Set(second)).toEqual(new Set([1_000]));
    expect(await outbox(agent.id)).toHaveLength(0);
  });
});
