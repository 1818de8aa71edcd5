import { eq } from "drizzle-orm";
import { describe, expect, it, onTestFinished } from "vitest";
import { agentMemories, agentRuns, messages, outboxMessages, steps, usageEvents, usageRollupsHourly, workspaces } from "../../lib/db/schema";
import { textTurn, toolTurn } from "../../lib/models/scripted";
import { ModelError } from "../../lib/models/types";
import { readRunEvents } from "../../lib/journal/run-journal-store";
import { createChatRun, requestCancel } from "../../lib/runs";
import { driveRun } from "../../lib/runtime/runner";
import { createChat } from "../../lib/chats/chats";
import { streamRunEvents } from "../../lib/runtime/stream";
import type { RunEvent } from "../../lib/journal/run-events";
import { createModelResolver } from "../../lib/models/registry";
import { demoOwner } from "../support/fixtures";
import { startFakeAnthropic } from "../support/fake-anthropic";
import { getRunRow, makeAgent, textOf, useScriptedModel, waitForRun } from "../support/runtime";
import { useTestServer } from "../support/server";

describe("agent runtime", () => {
  const server = useTestServer();

  async function chat(text: string, options: { tools?: string[] } = {}) {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, options);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text });
    return { s, owner, agent, session, runId };
  }

  it("a run asked to stop before its driver listened (during its first read, or before a restart) ends cancelled, not completed", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId);
    const startRuns = () => undefined;
    // Left to run, each would say this and complete.
    useScriptedModel(s, [textTurn(["All ", "of ", "it."]), textTurn(["All ", "of ", "it."])]);
    for (const how of ["aborted before the driver listened", "cancel written before the driver started"] as const) {
      const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
      const { runId } = await createChatRun(s.db, { workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "go", owner: s.runtime.deps.instanceId });
      if (how === "aborted before the driver listened") await driveRun(s.runtime.deps, runId, { signal: AbortSignal.abort("cancel"), startRuns });
      else {
        expect(await requestCancel(s.db, runId, "Stopped by Omar.")).toBe(true);
        await driveRun(s.runtime.deps, runId, { startRuns });
      }
      const events = await readRunEvents(s.db, runId, 0, 10_000);
      expect(events.at(-1)?.type, how).toBe("run_cancelled");
      expect((await getRunRow(s.db, runId)).state, how).toBe("cancelled");
    }
  });

  it("the first token's time is written with the run's first text, after a tool step that wrote none, and a run without text has none", async () => {
    const s = server();
    useScriptedModel(s, [toolTurn([{ id: "call_1", name: "memory.remember", input: { text: "the launch is on Friday" } }]), textTurn(["Done."])]);
    const { runId } = await chat("remember the launch is on Friday");
    const events = await waitForRun(s.db, runId);
    const run = await getRunRow(s.db, runId);
    const toolDone = Date.parse(events.find((e) => e.type === "dispatch_finished")!.at);
    expect(run.firstTokenAt).not.toBeNull();
    expect(run.firstTokenAt!.getTime()).toBeGreaterThanOrEqual(toolDone);
    expect(run.firstTokenAt!.getTime()).toBeLessThanOrEqual(run.finishedAt!.getTime());

    useScriptedModel(s, [textTurn([])]);
    const silent = await chat("say nothing");
    await waitForRun(s.db, silent.runId);
    expect((await getRunRow(s.db, silent.runId)).firstTokenAt).toBeNull();
  });

  it("journals the golden sequence: text, a tool step, more text, usage per call, completion", async () => {
    const s = server();
    s.runtime.deps.coalesceMs = 0;
    try {
      useScriptedModel(s, [
        toolTurn([{ id: "call_1", name: "memory.remember", input: { text: "the launch is on Friday" } }], "Noting."),
        textTurn(["Done", ", noted."], { inputTokens: 200, outputTokens: 10 }),
      ]);
      const { runId } = await chat("remember the launch is on Friday");
      const events = await waitForRun(s.db, runId);
      // Text that waits for the same group commit is one row, so adjacent text rows count as one here.
      expect(events.map((e) => e.type).filter((type, i, all) => type !== "text" || all[i - 1] !== "text")).toEqual([
        "run_started",
        "text",
        "usage",
        "step_started",
        "dispatch_started",
        "step_finished",
        "dispatch_finished",
        "text",
        "usage",
        "run_completed",
      ]);
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(textOf(events)).toBe("Noting.\n\nDone, noted.");
      const finished = events.find((e) => e.type === "step_finished");
      expect(finished?.payload).toMatchObject({ tool: "memory.remember", status: "succeeded", taint: [] });
      const run = await getRunRow(s.db, runId);
      expect(run).toMatchObject({ state: "succeeded", inputTokens: 300, outputTokens: 30, modelCalls: 2 });
      const [reply] = await s.db.select().from(messages).where(eq(messages.id, run.replyMessageId!));
      expect(reply!.content).toBe("Noting.\n\nDone, noted.");
      const [step] = await s.db.select().from(steps).where(eq(steps.runId, runId));
      expect(step).toMatchObject({ tool: "memory.remember", status: "succeeded", input: { text: "the launch is on Friday" }, messageId: run.replyMessageId });
    } finally {
      s.runtime.deps.coalesceMs = 0;
    }
  });

  it("coalesces text deltas into fewer journal rows without losing a character", async () => {
    const s = server();
    s.runtime.deps.coalesceMs = 40;
    onTestFinished(() => {
      s.runtime.deps.coalesceMs = 0;
    });
    const pieces = Array.from({ length: 60 }, (_, i) => `w${i} `);
    useScriptedModel(s, [{ ...textTurn(pieces), delayMs: 2 }]);
    const { runId } = await chat("talk");
    const events = await waitForRun(s.db, runId);
    const textRows = events.filter((e) => e.type === "text");
    expect(textRows.length).toBeLessThan(pieces.length);
    expect(textOf(events)).toBe(pieces.join(""));
  });

  it("a subscriber that joins mid-run with the last id it saw gets exactly the rest, as a live one did", async () => {
    const s = server();
    useScriptedModel(s, [{ ...textTurn(Array.from({ length: 40 }, (_, i) => `${i},`)), delayMs: 10 }]);
    const { runId } = await chat("count");
    const live: RunEvent[] = [];
    const late: RunEvent[] = [];
    let joinedAt = -1;
    let lateDone: Promise<void> | undefined;
    for await (const item of streamRunEvents({ db: s.db, bus: s.bus, runId, afterSeq: 0, heartbeatMs: 200 })) {
      if (item.kind !== "event") continue;
      live.push(item.event);
      if (live.length === 3) {
        joinedAt = item.event.seq;
        lateDone = (async () => {
          for await (const lateItem of streamRunEvents({ db: s.db, bus: s.bus, runId, afterSeq: joinedAt, heartbeatMs: 200 })) {
            if (lateItem.kind === "event") late.push(lateItem.event);
          }
        })();
      }
    }
    await lateDone;
    expect(live.at(-1)?.type).toBe("run_completed");
    expect(late).toEqual(live.filter((e) => e.seq > joinedAt));
    expect(late.length).toBeGreaterThan(2);
    expect(await readRunEvents(s.db, runId, 0)).toEqual(live);
  });

  it("a tool the workspace policy denies is refused, the model is told, and nothing is sent", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    await s.db.update(workspaces).set({ settings: { policy: { tools: { "slack.post": "deny" } } } }).where(eq(workspaces.id, owner.workspaceId));
    try {
      const model = useScriptedModel(s, [toolTurn([{ id: "c1", name: "slack.post", input: { channel: "#general", text: "hi" } }]), textTurn(["I could not post."])]);
      const { runId } = await chat("post hi");
      const events = await waitForRun(s.db, runId);
      const finished = events.find((e) => e.type === "step_finished");
      expect(finished?.payload).toMatchObject({ tool: "slack.post", status: "refused" });
      expect(String((finished?.payload as { error: string }).error)).toMatch(/policy denies/);
      expect(events.map((e) => e.type)).not.toContain("dispatch_started");
      const toolResult = model.requests[1]!.messages.at(-1)!.content[0]!;
      expect(toolResult).toMatchObject({ type: "tool_result", toolUseId: "c1", isError: true });
      expect((await s.db.select().from(outboxMessages).where(eq(outboxMessages.runId, runId))).length).toBe(0);
      expect((await getRunRow(s.db, runId)).state).toBe("succeeded");
    } finally {
      await s.db.update(workspaces).set({ settings: {} }).where(eq(workspaces.id, owner.workspaceId));
    }
  });

  it("a tool the agent was not given is refused; invalid input fails the step, not the run", async () => {
    const s = server();
    useScriptedModel(s, [
      toolTurn([
        { id: "a", name: "slack.post", input: { channel: "#x", text: "y" } },
        { id: "b", name: "memory.remember", input: { text: "" } },
      ]),
      textTurn(["ok"]),
    ]);
    const { runId } = await chat("go", { tools: ["memory.remember"] });
    const events = await waitForRun(s.db, runId);
    const statuses = events.filter((e) => e.type === "step_finished").map((e) => (e.payload as { status: string }).status);
    expect(statuses).toEqual(["refused", "failed"]);
    expect((await getRunRow(s.db, runId)).state).toBe("succeeded");
  });

  it("a provider error mid-stream fails the run with the reason and keeps the partial text", async () => {
    const s = server();
    useScriptedModel(s, [{ events: [{ type: "text", delta: "Half an ans" }], failAfter: new ModelError("Anthropic API error: overloaded_error: Overloaded", "provider_overloaded") }]);
    const { runId } = await chat("hello");
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)).toMatchObject({ type: "run_failed", payload: { code: "unavailable:model_overloaded", message: expect.stringContaining("Overloaded") } });
    const run = await getRunRow(s.db, runId);
    expect(run).toMatchObject({ state: "failed", errorCode: "unavailable:model_overloaded" });
    expect(run.leaseExpiresAt).toBeNull();
    const [reply] = await s.db.select().from(messages).where(eq(messages.id, run.replyMessageId!));
    expect(reply!.content).toBe("Half an ans");
    const [charge] = await s.db.select().from(usageEvents).where(eq(usageEvents.runId, runId));
    expect(charge!.inputTokens).toBeGreaterThan(0);
    expect(charge!.outputTokens).toBeGreaterThan(0);
  });

  it("cancel stops a run, keeps the partial text and charges the usage so far", async () => {
    const s = server();
    useScriptedModel(s, [{ ...textTurn(Array.from({ length: 200 }, () => "tick ")), delayMs: 15 }]);
    const { runId, owner } = await chat("go on forever");
    for (let i = 0; i < 100 && textOf(await readRunEvents(s.db, runId, 0)).length < 20; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await s.runtime.cancelRun(owner.workspaceId, runId, { userId: owner.id, role: "owner", name: "Omar" })).toMatchObject({ state: "cancelling" });
    const events = await waitForRun(s.db, runId);
    // The end says who stopped it, whichever process was driving the run.
    expect(events.at(-1)).toMatchObject({ type: "run_cancelled", payload: { reason: "Stopped by Omar." } });
    const run = await getRunRow(s.db, runId);
    expect(run.state).toBe("cancelled");
    const text = textOf(events);
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThan(1000);
    const [reply] = await s.db.select().from(messages).where(eq(messages.id, run.replyMessageId!));
    expect(reply!.content).toBe(text);
    const charges = await s.db.select().from(usageEvents).where(eq(usageEvents.runId, runId));
    expect(charges).toHaveLength(1);
    expect(charges[0]!.outputTokens).toBeGreaterThan(0);
    expect(run.credits).toBe(charges[0]!.credits);
    await expect(s.runtime.cancelRun(owner.workspaceId, runId, { userId: owner.id, role: "owner" })).rejects.toMatchObject({ code: "conflict:run" });
  });

  it("a run whose process died is failed by the sweeper with a reason, never left running", async () => {
    const s = server();
    useScriptedModel(s, [{ ...textTurn(Array.from({ length: 300 }, () => "zzz ")), delayMs: 20 }]);
    const { runId } = await chat("long job");
    for (let i = 0; i < 100 && (await readRunEvents(s.db, runId, 0)).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    s.runtime.abandonAll();
    await s.runtime.drain();
    expect((await getRunRow(s.db, runId)).state).toBe("running");
    expect((await s.runtime.sweep()).reaped).toBe(0);
    await s.db.update(agentRuns).set({ leaseExpiresAt: new Date(Date.now() - 1000) }).where(eq(agentRuns.id, runId));
    expect((await s.runtime.sweep()).reaped).toBe(1);
    const events = await readRunEvents(s.db, runId, 0);
    expect(events.at(-1)).toMatchObject({ type: "run_failed", payload: { code: "internal:lease_expired" } });
    expect((await getRunRow(s.db, runId)).state).toBe("failed");
    expect((await s.runtime.sweep()).reaped).toBe(0);
  });

  it("charges every model call once, with rollups equal to the ledger", async () => {
    const s = server();
    useScriptedModel(s, [
      toolTurn([{ id: "r", name: "memory.recall", input: { query: "nothing" } }], "", { inputTokens: 1000, outputTokens: 500 }),
      textTurn(["fine"], { inputTokens: 1000, outputTokens: 500 }),
    ]);
    const { runId, agent } = await chat("recall");
    await waitForRun(s.db, runId);
    const rows = await s.db.select().from(usageEvents).where(eq(usageEvents.runId, runId));
    // Unpriced "scripted" model falls back to $3 / $15 per Mtok: 1000 × 3 + 500 × 15 = 10,500 credits per call.
    expect(rows.map((r) => r.credits)).toEqual([10_500, 10_500]);
    expect(rows.map((r) => r.idempotencyKey).sort()).toEqual([`run:${runId}:call:0`, `run:${runId}:call:1`]);
    expect(rows.every((r) => r.unpriced === 1 && r.sourceKind === "run" && r.agentId === agent.id)).toBe(true);
    const [rollup] = await s.db.select().from(usageRollupsHourly).where(eq(usageRollupsHourly.agentId, agent.id));
    expect(rollup).toMatchObject({ calls: 2, inputTokens: 2000, outputTokens: 1000, credits: 21_000 });
    expect((await getRunRow(s.db, runId)).credits).toBe(21_000);
  });

  it("remembers, recalls, keeps each reply, and puts relevant memories in the next turn's system prompt", async () => {
    const s = server();
    const model = useScriptedModel(s, [
      toolTurn([{ id: "m1", name: "memory.remember", input: { text: "The launch date is Friday the 13th" } }]),
      textTurn(["Saved."]),
      toolTurn([{ id: "m2", name: "memory.recall", input: { query: "launch date" } }]),
      textTurn(["It is Friday."]),
    ]);
    const first = await chat("remember the launch");
    await waitForRun(s.db, first.runId);
    const { runId } = await s.runtime.startChatRun({ workspaceId: first.owner.workspaceId, sessionId: first.session.id, userId: first.owner.id, text: "when is the launch date?" });
    const events = await waitForRun(s.db, runId);
    const recall = events.find((e) => e.type === "step_finished")!.payload as { output: { memories: { content: string }[] } };
    expect(recall.output.memories.map((m) => m.content)).toEqual(["The launch date is Friday the 13th"]);
    expect(model.requests[2]!.system).toContain("The launch date is Friday the 13th");
    expect(model.requests[2]!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    // A reply is remembered once its run has completed, so the second one may land just after the terminal event.
    const kinds = async () => (await s.db.select().from(agentMemories).where(eq(agentMemories.agentId, first.agent.id))).map((m) => m.kind).sort();
    await expect.poll(kinds, { timeout: 5_000 }).toEqual(["note", "reply", "reply"]);
  });
});

describe("agent runtime with Claude through the real SDK", () => {
  const server = useTestServer();

  it("runs a tool turn against a server that validates requests as the real API does", async () => {
    const fake = await startFakeAnthropic({ apiKey: "sk-test-key" });
    try {
      const s = server();
      const resolver = createModelResolver({ anthropic: { apiKey: "sk-test-key", baseURL: fake.baseURL }, named: [], offlineDelayMs: 0, defaultModel: "offline" });
      const previous = s.runtime.deps.models;
      s.runtime.deps.models = (spec) => (spec.startsWith("claude") ? resolver(spec) : previous(spec));
      fake.enqueue(
        {
          kind: "reply",
          blocks: [
            { type: "text", chunks: ["Let me ", "note that."] },
            { type: "tool_use", id: "toolu_01", name: "memory_remember", inputChunks: ['{"text": "the ', 'demo is Tuesday"}'] },
          ],
          stopReason: "tool_use",
          usage: { input: 120, output: 30 },
        },
        { kind: "reply", blocks: [{ type: "text", chunks: ["Noted: ", "Tuesday."] }], stopReason: "end_turn", usage: { input: 200, output: 8 } },
      );
      const owner = await demoOwner(s.db);
      const agent = await makeAgent(s.db, owner.workspaceId, { model: "claude-sonnet-4-6" });
      const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
      const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "remember the demo is Tuesday" });
      const events = await waitForRun(s.db, runId);
      expect(events.at(-1)?.type).toBe("run_completed");
      expect(textOf(events)).toBe("Let me note that.\n\nNoted: Tuesday.");
      expect(events.find((e) => e.type === "step_finished")?.payload).toMatchObject({ tool: "memory.remember", status: "succeeded" });
      expect(fake.requests.map((r) => r.status)).toEqual([200, 200]);
      const second = fake.requests[1]!.body as { messages: { role: string; content: { type: string; tool_use_id?: string }[] }[] };
      expect(second.messages.at(-1)?.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_01" });
      const run = await getRunRow(s.db, runId);
      expect(run).toMatchObject({ inputTokens: 320, outputTokens: 38, modelCalls: 2 });
      // Sonnet at $3 / $15 per Mtok: 120×3 + 30×15 = 810, then 200×3 + 8×15 = 720 credits.
      expect(run.credits).toBe(810 + 720);
    } finally {
      await fake.close();
    }
  });
});
