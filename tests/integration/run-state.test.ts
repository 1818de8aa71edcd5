import { z } from "zod";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as listRoute } from "../../app/api/approvals/route";
import { POST as postToRoomRoute } from "../../app/api/rooms/[id]/messages/route";
import { POST as createRoomRoute } from "../../app/api/rooms/route";
import { POST as sendMessageRoute } from "../../app/api/sessions/[id]/messages/route";
import { agentRuns, agents, approvals, messages, outboxMessages, runEvents, steps } from "../../lib/db/schema";
import { rowsOf } from "../../lib/db/client";
import { readFeed } from "../../lib/feed/feed";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { insertRunEvents, readRunEvents, RunLostError } from "../../lib/journal/run-journal-store";
import { claimResume } from "../../lib/runs";
import { decideApproval } from "../../lib/safety/approvals";
import { createChat } from "../../lib/chats/chats";
import { builtinTools, createToolRegistry } from "../../lib/tools/registry";
import type { ToolDefinition } from "../../lib/tools/types";
import { demoOwner, makeUser } from "../support/fixtures";
import { getRunRow, makeAgent, textOf, settle, useScriptedModel, waitForRun } from "../support/runtime";
import { jsonRequest, params, sessionCookie, useTestServer } from "../support/server";
import { approvalSteps } from "../support/approvals";

describe("run state: lifecycle, pause and crashes", () => {
  const server = useTestServer();
  const { reviewerChat, pendingApprovalOf, decide, grantsOf, chatAs } = approvalSteps(server);

  it("cancelling a suspended run withdraws its approval; a later approve gets 409 saying the run was stopped, mints no grant and journals nothing", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    useScriptedModel(s, [toolTurn([{ id: "c1", name: "slack.post", input: { channel: "#general", text: "hi" } }]), textTurn(["never"])]);
    const agent = await makeAgent(s.db, owner.workspaceId);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "post" });
    const approval = await pendingApprovalOf(agent.id);
    await settle(async () => (await getRunRow(s.db, runId)).state === "suspended");
    expect(await s.runtime.cancelRun(owner.workspaceId, runId, { userId: owner.id, role: "owner", name: "Omar" })).toMatchObject({ state: "cancelled" });
    const [withdrawn] = await s.db.select().from(approvals).where(eq(approvals.id, approval.id));
    expect(withdrawn?.status).toBe("withdrawn");
    const before = await readRunEvents(s.db, runId, 0);
    expect(before.at(-1)).toMatchObject({ type: "run_cancelled", payload: { reason: "Stopped by Omar." } });

    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    const late = await decide(reviewer, approval.id);
    expect(late.status).toBe(409);
    const body = await late.json();
    expect(body.code).toBe("conflict:approval");
    expect(body.message).toMatch(/run .*was stopped/);
    expect(await grantsOf(approval.id)).toBe(0);
    expect(await s.runtime.resumeRun(runId)).toBe(false);
    expect(await readRunEvents(s.db, runId, 0)).toEqual(before);

    const history = await (await listRoute(jsonRequest("/api/approvals?status=withdrawn", { cookie: await sessionCookie(s, reviewer) }))).json();
    expect(history.approvals.map((a: { id: string }) => a.id)).toContain(approval.id);
  });

  it("nothing is journaled after a terminal event: a late system write is refused and the sweeper adds nothing to a finished run", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    useScriptedModel(s, [textTurn(["short answer"])]);
    const agent = await makeAgent(s.db, owner.workspaceId);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "hi" });
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.type).toBe("run_completed");
    await expect(s.db.transaction((tx) => insertRunEvents(tx, runId, null, [{ type: "run_failed", payload: { code: "late", message: "late" } }]))).rejects.toBeInstanceOf(RunLostError);
    await expect(s.db.transaction((tx) => insertRunEvents(tx, runId, null, [{ type: "text", payload: { delta: "late" } }]))).rejects.toBeInstanceOf(RunLostError);
    // Even a row made to look orphaned is not failed again.
    await s.db.update(agentRuns).set({ state: "running", leaseExpiresAt: new Date(Date.now() - 1000) }).where(eq(agentRuns.id, runId));
    await s.runtime.sweep();
    const after = await s.db.select({ type: runEvents.type }).from(runEvents).where(eq(runEvents.runId, runId)).orderBy(runEvents.seq);
    expect(after.map((e) => e.type)).toEqual(events.map((e) => e.type));
    expect(after.filter((e) => ["run_completed", "run_failed", "run_cancelled"].includes(e.type))).toHaveLength(1);
  });

  it("a paused agent starts no run: a person's message gets 409 conflict:agent_paused, chat.send to it says it is paused, a room post names it", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const scout = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: [] });
    const atlas = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["chat.send"] });
    const other = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: [] });
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: member.id, agent: { id: scout.id } });
    await s.db.update(agents).set({ status: "paused" }).where(eq(agents.id, scout.id));
    const feedBefore = (await readFeed(s.db, owner.workspaceId, 0, {}, 10_000)).at(-1)?.seq ?? 0;

    const refused = await sendMessageRoute(
      jsonRequest(`/api/sessions/${session.id}/messages`, { method: "POST", cookie: await sessionCookie(s, member), body: { text: "hello?" } }),
      params({ id: session.id }),
    );
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body.code).toBe("conflict:agent_paused");
    expect(body.message).toContain(`@${scout.handle} is paused`);
    expect((await s.db.select().from(messages).where(eq(messages.sessionId, session.id))).length).toBe(0);

    const { runId } = await reviewerChat(atlas.id, `tell @${scout.handle} are you there`);
    const events = await waitForRun(s.db, runId);
    const finished = events.find((e) => e.type === "step_finished")!.payload as { status: string; output: { summary: string; paused: string[] } };
    expect(finished.status).toBe("succeeded");
    expect(finished.output.summary).toContain(`@${scout.handle} is paused`);
    expect(finished.output.paused).toEqual([scout.handle]);

    const cookie = await sessionCookie(s, owner);
    const room = (await (await createRoomRoute(jsonRequest("/api/rooms", { method: "POST", cookie, body: { name: `quiet-${Date.now()}`, agentIds: [scout.id, other.id] } }))).json()).room;
    const posted = await postToRoomRoute(jsonRequest(`/api/rooms/${room.id}/messages`, { method: "POST", cookie, body: { text: "status?" } }), params({ id: room.id }));
    expect(posted.status).toBe(202);
    const result = await posted.json();
    expect(result.runIds).toHaveLength(1);
    expect(result.paused).toEqual([scout.handle]);
    expect(result.notice).toContain(`@${scout.handle} is paused`);
    await s.runtime.drain();

    expect(await s.db.select().from(agentRuns).where(eq(agentRuns.agentId, scout.id))).toEqual([]);
    const pausedItems = await readFeed(s.db, owner.workspaceId, feedBefore, { kind: ["agent_paused"] });
    expect(pausedItems.map((i) => i.targetAgentId)).toEqual([scout.id, scout.id]);
    expect(pausedItems.map((i) => i.runId)).toEqual([runId, null]);
  });

  it("identical pending requests are shown once with their count; approving applies to the one shown and the next shows with one less", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId);
    const runIds: string[] = [];
    // Each run suspends on its first model call before the next starts, so they take the three tool turns in order.
    const same = (i: number) => toolTurn([{ id: `same${i}`, name: "slack.post", input: { channel: "#ops", text: "deploy now" } }]);
    useScriptedModel(s, [same(0), same(1), same(2), textTurn(["ok"]), textTurn(["ok"]), textTurn(["ok"])]);
    for (let i = 0; i < 3; i++) {
      const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
      runIds.push((await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "deploy" })).runId);
      await settle(async () => (await getRunRow(s.db, runIds[i]!)).state === "suspended");
    }
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    const cookie = await sessionCookie(s, reviewer);
    const mine = async () =>
      ((await (await listRoute(jsonRequest("/api/approvals?status=pending", { cookie }))).json()).approvals as { id: string; runId: string; identical: { count: number; ids: string[] } }[]).filter((a) =>
        runIds.includes(a.runId),
      );
    const first = await mine();
    expect(first).toHaveLength(1);
    expect(first[0]!.identical.count).toBe(3);
    expect(first[0]!.identical.ids).toHaveLength(3);
    expect((await decide(reviewer, first[0]!.id)).status).toBe(200);
    const second = await mine();
    expect(second).toHaveLength(1);
    expect(second[0]!.identical.count).toBe(2);
    expect(second[0]!.id).not.toBe(first[0]!.id);
    const statuses = await s.db.select({ status: approvals.status }).from(approvals).where(sql`${approvals.runId} in ${runIds}`);
    expect(statuses.map((r) => r.status).sort()).toEqual(["approved", "pending", "pending"]);
    for (const id of runIds) await s.runtime.cancelRun(owner.workspaceId, id, { userId: owner.id, role: "owner" }).catch(() => undefined);
    await s.runtime.drain();
  });

  it("a paused agent's orphaned run is neither recovered nor failed by the sweeper; once the agent is resumed it is carried on and the effect happens once", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const herald = await makeAgent(s.db, owner.workspaceId, { model: "offline", tools: ["slack.post"] });
    const runId = await chatAs(owner, owner.workspaceId, herald.id, "slack #general orphaned while paused");
    const approval = await pendingApprovalOf(herald.id);
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    await decideApproval(s.db, s.bus, s.runtime.deps.tools, { workspaceId: owner.workspaceId, approvalId: approval.id, decider: { userId: reviewer.id, role: "reviewer" }, decision: "approve" });
    // Another process claims the decided run and dies before it does anything; then the agent is paused.
    expect(await claimResume(s.db, s.bus, runId, "dead-process")).toMatchObject({ id: approval.id });
    await s.db.update(agentRuns).set({ leaseExpiresAt: new Date(Date.now() - 1000) }).where(eq(agentRuns.id, runId));
    await s.db.update(agents).set({ status: "paused" }).where(eq(agents.id, herald.id));
    await s.runtime.sweep();
    await s.runtime.drain();
    expect(await getRunRow(s.db, runId)).toMatchObject({ state: "running", claimedBy: "dead-process" });
    expect((await readRunEvents(s.db, runId, 0)).filter((e) => e.type === "dispatch_started" || e.type === "run_failed")).toEqual([]);

    await s.db.update(agents).set({ status: "active" }).where(eq(agents.id, herald.id));
    expect(await s.runtime.sweep()).toMatchObject({ recovered: 1, reaped: 0 });
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.type).toBe("run_completed");
    expect(events.filter((e) => e.type === "dispatch_started")).toHaveLength(1);
    expect((await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).length).toBe(1);
  });

  it("a damaged checkpoint fails the run with internal:checkpoint when it resumes", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    useScriptedModel(s, [toolTurn([{ id: "c1", name: "slack.post", input: { channel: "#general", text: "x" } }]), textTurn(["never"])]);
    const agent = await makeAgent(s.db, owner.workspaceId);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "post" });
    const approval = await pendingApprovalOf(agent.id);
    await settle(async () => (await getRunRow(s.db, runId)).state === "suspended");
    await s.db.update(agentRuns).set({ checkpoint: { version: 2, conversation: "garbled" } }).where(eq(agentRuns.id, runId));
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    expect((await decide(reviewer, approval.id)).status).toBe(200);
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)).toMatchObject({ type: "run_failed", payload: { code: "internal:checkpoint" } });
    expect((await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).length).toBe(0);
  });

  it("a transient database error (serialization failure) inside a run is retried and the run completes", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    await s.db.execute(sql`create sequence if not exists flaky_once`);
    await s.db.execute(sql`create or replace function flaky_step() returns trigger as $$ begin
      if new.type = 'step_started' and nextval('flaky_once') = 1 then
        raise exception 'could not serialize access due to concurrent update' using errcode = '40001';
      end if; return new; end; $$ language plpgsql`);
    await s.db.execute(sql`create trigger flaky_step before insert on run_events for each row execute function flaky_step()`);
    try {
      useScriptedModel(s, [toolTurn([{ id: "m1", name: "memory.remember", input: { text: "retry me" } }]), textTurn(["Kept."])]);
      const agent = await makeAgent(s.db, owner.workspaceId);
      const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
      const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "remember" });
      const events = await waitForRun(s.db, runId);
      expect(events.at(-1)?.type).toBe("run_completed");
      expect(events.filter((e) => e.type === "step_started")).toHaveLength(1);
      const [row] = rowsOf<{ value: number }>(await s.db.execute(sql`select last_value as value from flaky_once`));
      // The first attempt was refused by the trigger; the retry went through.
      expect(Number(row?.value)).toBeGreaterThanOrEqual(2);
    } finally {
      await s.db.execute(sql`drop trigger if exists flaky_step on run_events`);
    }
  });

  it("a process that dies while an approved effect runs: the sweeper carries the run on, records the step unconfirmed and never repeats the effect", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    let effects = 0;
    const blocking: ToolDefinition<{ note: string }, { ok: boolean }> = {
      name: "test.effect",
      description: "Does something outside, then hangs.",
      input: z.object({ note: z.string() }),
      effects: ["sends_externally"],
      taint: () => null,
      preview: (input) => ({ title: "Effect", fields: [{ label: "Note", value: input.note }] }),
      async execute(ctx) {
        effects += 1;
        await new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" }))));
        return { ok: true };
      },
    };
    const previous = s.runtime.deps.tools;
    s.runtime.deps.tools = createToolRegistry([...builtinTools, blocking as unknown as (typeof builtinTools)[number]]);
    try {
      useScriptedModel(s, [toolTurn([{ id: "e1", name: "test.effect", input: { note: "once" } }]), textTurn(["Carried on after the crash."])]);
      const agent = await makeAgent(s.db, owner.workspaceId, { tools: ["test.effect"] });
      const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
      const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "do it" });
      const approval = await pendingApprovalOf(agent.id);
      await settle(async () => (await getRunRow(s.db, runId)).state === "suspended");
      const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
      expect((await decide(reviewer, approval.id)).status).toBe(200);
      await settle(async () => effects === 1);
      s.runtime.abandonAll();
      await s.runtime.drain();
      expect((await getRunRow(s.db, runId)).state).toBe("running");
      await s.db.update(agentRuns).set({ leaseExpiresAt: new Date(Date.now() - 1000) }).where(eq(agentRuns.id, runId));
      expect(await s.runtime.sweep()).toMatchObject({ recovered: 1, reaped: 0 });
      const events = await waitForRun(s.db, runId);
      expect(events.at(-1)?.type).toBe("run_completed");
      expect(textOf(events)).toContain("Carried on after the crash.");
      expect(events.find((e) => e.type === "run_resumed" && (e.payload as { recovered?: boolean }).recovered)).toBeTruthy();
      const [step] = await s.db.select().from(steps).where(eq(steps.id, approval.stepId!));
      expect(step?.error ?? "").toMatch(/whether it took effect is unknown/);
      expect(step?.status).toBe("unconfirmed");
      expect(effects).toBe(1);
      expect((await getRunRow(s.db, runId)).state).toBe("succeeded");
    } finally {
      s.runtime.deps.tools = previous;
    }
  });

  it("a process that dies after claiming a decided run but before the effect: the sweeper carries it on and the effect happens once, through the grant", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    useScriptedModel(s, [toolTurn([{ id: "p1", name: "slack.post", input: { channel: "#general", text: "after a crash" } }]), textTurn(["Posted."])]);
    const agent = await makeAgent(s.db, owner.workspaceId);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "post" });
    const approval = await pendingApprovalOf(agent.id);
    await settle(async () => (await getRunRow(s.db, runId)).state === "suspended");
    const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
    await decideApproval(s.db, s.bus, s.runtime.deps.tools, { workspaceId: owner.workspaceId, approvalId: approval.id, decider: { userId: reviewer.id, role: "reviewer" }, decision: "approve" });
    // Another process wins the claim and dies before it does anything.
    expect(await claimResume(s.db, s.bus, runId, "dead-process")).toMatchObject({ id: approval.id });
    await s.db.update(agentRuns).set({ leaseExpiresAt: new Date(Date.now() - 1000) }).where(eq(agentRuns.id, runId));
    expect(await s.runtime.sweep()).toMatchObject({ recovered: 1, reaped: 0 });
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.type).toBe("run_completed");
    expect(events.filter((e) => e.type === "dispatch_started")).toHaveLength(1);
    const [step] = await s.db.select().from(steps).where(eq(steps.id, approval.stepId!));
    expect(step?.status).toBe("succeeded");
    expect((await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).length).toBe(1);
    expect(await s.runtime.sweep()).toMatchObject({ recovered: 0, reaped: 0 });
  });
});
