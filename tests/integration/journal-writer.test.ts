import crypto from "node:crypto";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../../lib/db/client";
import { recordQueries } from "../../lib/db/query-count";
import type { ModelEvent, ModelProvider, ModelRequest } from "../../lib/models/types";
import { createLocalBus, createPostgresBus, type EventBus } from "../../lib/runtime/bus";
import type { RunEvent } from "../../lib/journal/run-events";
import { readRunEvents, RunLostError } from "../../lib/journal/run-journal-store";
import { CARRIED_BYTES, journalWriterFor } from "../../lib/runtime/journal-writer";
import { createRuntime } from "../../lib/runtime/runtime";
import { createChatRun, finishRun } from "../../lib/runtime/run-state";
import { createSession } from "../../lib/runtime/sessions";
import { streamRunEvents } from "../../lib/runtime/stream";
import { createModelResolver, modelConfigFromEnv, type ResolvedModel } from "../../lib/models/registry";
import { createToolRegistry } from "../../lib/tools/registry";
import { demoOwner } from "../support/fixtures";
import { makeAgent, routeModel, textOf } from "../support/runtime";
import { useTestServer } from "../support/server";

/** What run `key` is told to say: numbered pieces, so a lost, repeated or reordered one shows. */
const piecesOf = (key: string, count: number) => Array.from({ length: count }, (_, i) => `${key}:${i};`);

/** A model that says `piecesOf(user text, count)`, one piece per `paceMs`. */
function countingModel(count: number, paceMs: number): ModelProvider {
  return {
    name: "counting",
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      const user = [...request.messages].reverse().find((m) => m.role === "user");
      const first = user?.content.find((b) => b.type === "text");
      const key = first?.type === "text" ? first.text : "";
      for (const delta of piecesOf(key, count)) {
        await new Promise((r) => setTimeout(r, paceMs));
        yield { type: "text", delta };
      }
      yield { type: "usage", usage: { inputTokens: 10, outputTokens: count } };
      yield { type: "stop", reason: "end_turn" };
    },
  };
}

async function collect(options: Parameters<typeof streamRunEvents>[0]): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const item of streamRunEvents(options)) if (item.kind === "event") events.push(item.event);
  return events;
}

const seqsAreDense = (events: RunEvent[], from = 1) => events.every((e, i) => e.seq === from + i);

describe("the group-committing journal writer", () => {
  const server = useTestServer();

  it("gives every subscriber exactly each model's text, in sequence order, under concurrent runs; replay equals live", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    routeModel(s, "counting", countingModel(40, 1));
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "counting", tools: [] });
    const keys = Array.from({ length: 12 }, (_, i) => `run${i}-${crypto.randomBytes(2).toString("hex")}`);
    const runs = await Promise.all(
      keys.map(async (key) => {
        const session = await createSession(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
        const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: key });
        // Two live subscribers per run, one of them through the former read-back path.
        // No heartbeat within the test's time: nothing but the writer's hand-over can carry them to the end.
        const live = [
          collect({ db: s.db, bus: s.bus, runId, afterSeq: 0, heartbeatMs: 600_000 }),
          collect({ db: s.db, bus: s.bus, runId, afterSeq: 0, heartbeatMs: 600_000, fromMemory: false }),
        ];
        return { key, runId, live };
      }),
    );
    for (const run of runs) {
      const [memory, readBack] = await Promise.all(run.live);
      const expected = piecesOf(run.key, 40).join("");
      for (const events of [memory!, readBack!]) {
        expect(textOf(events)).toBe(expected);
        expect(seqsAreDense(events)).toBe(true);
        expect(events.at(-1)?.type).toBe("run_completed");
      }
      const stored = await readRunEvents(s.db, run.runId, 0, 10_000);
      expect(memory).toEqual(stored);
      expect(readBack).toEqual(stored);
      // Replay from the middle is the live tail from there.
      const middle = stored[Math.floor(stored.length / 2)]!.seq;
      expect(await collect({ db: s.db, bus: s.bus, runId: run.runId, afterSeq: middle })).toEqual(stored.filter((e) => e.seq > middle));
    }
  });

  it("a follower in the driving process reads the journal once, when it opens: the rest, the run's end included, comes from memory", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    routeModel(s, "counting", countingModel(10, 20));
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "counting", tools: [] });
    const session = await createSession(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const key = `once-${crypto.randomBytes(2).toString("hex")}`;
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: key });
    const { result: events, queries } = await recordQueries(() => collect({ db: s.db, bus: s.bus, runId, afterSeq: 0, heartbeatMs: 600_000 }));
    expect(textOf(events)).toBe(piecesOf(key, 10).join(""));
    expect(events.at(-1)?.type).toBe("run_completed");
    expect(events).toEqual(await readRunEvents(s.db, runId, 0, 10_000));
    expect(queries.filter((q) => /from "run_events"/.test(q))).toHaveLength(1);
  });

  it("a run ended by an attempt whose answer was lost: the retry finds it ended and this process's followers read the end", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { tools: [] });
    const session = await createSession(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const instance = `retrying-${crypto.randomBytes(3).toString("hex")}`;
    const { runId } = await createChatRun(s.db, { workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "hi", owner: instance });
    await journalWriterFor(s.db, s.bus).append(runId, instance, [{ type: "text", payload: { delta: "said." } }]);
    let opened!: () => void;
    const first = new Promise<void>((resolve) => (opened = resolve));
    const events = (async () => {
      const got: RunEvent[] = [];
      // No heartbeat within the test: only a wake can make the follower read again.
      for await (const item of streamRunEvents({ db: s.db, bus: s.bus, runId, afterSeq: 0, heartbeatMs: 600_000 })) {
        if (item.kind !== "event") continue;
        got.push(item.event);
        opened();
      }
      return got;
    })();
    await first;
    const end = { runId, owner: instance, state: "succeeded" as const, replyText: "said.", event: { type: "run_completed" as const, payload: { replyMessageId: crypto.randomUUID() } } };
    // The first attempt commits, and its process hears nothing of it (as when the answer to the statement is lost: a
    // statement in a transaction of its own, with a bus nobody listens to).
    const silent = createLocalBus();
    await s.db.transaction(async (tx) => expect(await finishRun(tx, silent, end)).toBe(true));
    await silent.close();
    // The retry finds the run ended.
    expect(await finishRun(s.db, s.bus, end)).toBe(false);
    const got = await events;
    expect(got.at(-1)?.type).toBe("run_completed");
    expect(got).toEqual(await readRunEvents(s.db, runId, 0, 10_000));
  });

  it("loses nothing when the process stops between the commit and the notification", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { tools: [] });
    const session = await createSession(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const instance = `crashing-${crypto.randomBytes(3).toString("hex")}`;
    const { runId } = await createChatRun(s.db, { workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "hi", owner: instance });
    const writer = journalWriterFor(s.db, s.bus);

    const live: RunEvent[] = [];
    const controller = new AbortController();
    const following = (async () => {
      for await (const item of streamRunEvents({ db: s.db, bus: s.bus, runId, afterSeq: 0, heartbeatMs: 100, signal: controller.signal })) {
        if (item.kind !== "event") continue;
        live.push(item.event);
        if (textOf(live) === "before.after.end.") controller.abort();
      }
    })();
    expect(await writer.append(runId, instance, [{ type: "text", payload: { delta: "before." } }])).toBe(1);
    writer.crashAfterCommit = true;
    await expect(writer.append(runId, instance, [{ type: "text", payload: { delta: "after." } }])).rejects.toThrow(/stopped after the commit/);
    // A reader reconnecting with the last id it saw gets what was committed but never announced.
    const reconnected = await (async () => {
      const events: RunEvent[] = [];
      const stop = new AbortController();
      for await (const item of streamRunEvents({ db: s.db, bus: s.bus, runId, afterSeq: 1, heartbeatMs: 100, signal: stop.signal })) {
        if (item.kind !== "event") continue;
        events.push(item.event);
        stop.abort();
      }
      return events;
    })();
    expect(reconnected.map((e) => [e.seq, e.type, e.payload])).toEqual([[2, "text", { delta: "after." }]]);
    expect(await writer.append(runId, instance, [{ type: "text", payload: { delta: "end." } }])).toBe(3);
    await following;
    expect(textOf(live)).toBe("before.after.end.");
    expect(seqsAreDense(live)).toBe(true);
    expect(live).toEqual(await readRunEvents(s.db, runId, 0));
  });

  it("refuses events of a run this process no longer drives, and still commits the other runs of the same flush", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { tools: [] });
    const instance = `owner-${crypto.randomBytes(3).toString("hex")}`;
    const start = async () => {
      const session = await createSession(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
      return (await createChatRun(s.db, { workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "hi", owner: instance })).runId;
    };
    const [mine, taken] = [await start(), await start()];
    const writer = journalWriterFor(s.db, s.bus);
    const results = await Promise.allSettled([
      writer.append(mine, instance, [{ type: "text", payload: { delta: "kept" } }]),
      writer.append(taken, "someone-else", [{ type: "text", payload: { delta: "refused" } }]),
    ]);
    expect(results[0]).toEqual({ status: "fulfilled", value: 1 });
    expect(results[1]!.status === "rejected" && results[1].reason).toBeInstanceOf(RunLostError);
    expect(textOf(await readRunEvents(s.db, mine, 0))).toBe("kept");
    expect(await readRunEvents(s.db, taken, 0)).toEqual([]);
    // A terminal event closes the journal for good.
    await writer.append(mine, instance, [{ type: "run_failed", payload: { code: "x", message: "x" } }]);
    await expect(writer.append(mine, instance, [{ type: "text", payload: { delta: "late" } }])).rejects.toBeInstanceOf(RunLostError);
  });

  // Two processes share a database only on PostgreSQL (PGlite is one process's own): this one runs in that leg.
  if (process.env.TEST_DRIVER === "postgres") it("two instances on one PostgreSQL database see the same sequence", async () => {
    const s = server();
    const url = process.env.DATABASE_URL!;
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "counting", tools: [] });
    const other = await openDatabase({ driver: "postgres", url });
    const otherBus = await createPostgresBus(url);
    const second = createRuntime({
      db: other.db,
      bus: otherBus,
      models: createModelResolver(modelConfigFromEnv({})),
      tools: createToolRegistry(),
      encryptionKey: crypto.randomBytes(32),
      instanceId: `${os.hostname()}:second:${crypto.randomBytes(3).toString("hex")}`,
      maxSteps: 4,
      maxTokens: 1024,
      coalesceMs: 0,
      heartbeatMs: 10_000,
    });
    const configured = second.deps.models;
    const model = countingModel(30, 1);
    second.deps.models = (spec): ResolvedModel => (spec === "counting" ? { provider: model, model: "counting", spec, offline: false } : configured(spec));
    routeModel(s, "counting", model);
    try {
      const keys = ["a", "b", "c", "d", "e", "f"].map((k) => `${k}-${crypto.randomBytes(2).toString("hex")}`);
      const runs = await Promise.all(
        keys.map(async (key, i) => {
          const session = await createSession(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
          // Half the runs are driven by each instance; every run is followed on both.
          const driver = i % 2 === 0 ? s.runtime : second;
          const { runId } = await driver.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: key });
          return {
            key,
            runId,
            // No heartbeat within the test's time: only the notifications can carry these readers to the end.
            here: collect({ db: s.db, bus: s.bus, runId, afterSeq: 0, heartbeatMs: 600_000 }),
            there: collect({ db: other.db, bus: otherBus, runId, afterSeq: 0, heartbeatMs: 600_000 }),
          };
        }),
      );
      for (const run of runs) {
        const [here, there] = await Promise.all([run.here, run.there]);
        const stored = await readRunEvents(s.db, run.runId, 0, 10_000);
        expect(textOf(stored)).toBe(piecesOf(run.key, 30).join(""));
        expect(here).toEqual(stored);
        expect(there).toEqual(stored);
      }
      await second.drain();
    } finally {
      await otherBus.close();
      await other.close();
    }
  });

  if (process.env.TEST_DRIVER === "postgres") describe("rows that travel with the notification", () => {
    /** A second instance's database handle, bus and journal writer, on the test server's PostgreSQL database. */
    async function secondInstance() {
      const url = process.env.DATABASE_URL!;
      const other = await openDatabase({ driver: "postgres", url });
      const bus = await createPostgresBus(url);
      return { db: other.db, bus, writer: journalWriterFor(other.db, bus), close: async () => (await bus.close(), await other.close()) };
    }

    /** `count` runs driven by `instance`, with no model behind them: the test appends their events itself. */
    async function ownedRuns(s: ReturnType<typeof server>, instance: string, count: number): Promise<string[]> {
      const owner = await demoOwner(s.db);
      const agent = await makeAgent(s.db, owner.workspaceId, { tools: [] });
      return Promise.all(
        Array.from({ length: count }, async () => {
          const session = await createSession(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
          return (await createChatRun(s.db, { workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "hi", owner: instance })).runId;
        }),
      );
    }

    /** Resolves once `to` has received everything `from`'s database had notified before the call. */
    async function notificationsArrived(from: EventBus, to: EventBus) {
      const topic = `sync-${crypto.randomBytes(4).toString("hex")}`;
      let off = () => {};
      const arrived = new Promise<void>((resolve) => (off = to.subscribe(topic, () => resolve())));
      try {
        await from.publish(topic, {});
        await arrived;
      } finally {
        off();
      }
    }

    /**
     * Follows a run until its terminal event; `first` resolves once the follower has handed over its first event,
     * `reached(seq)` once it has handed over that one.
     */
    function follow(db: Db, bus: EventBus, runId: string) {
      const got: RunEvent[] = [];
      const waiting: { seq: number; resolve: () => void }[] = [];
      const reached = (seq: number) =>
        got.some((event) => event.seq >= seq) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ seq, resolve }));
      const events = (async () => {
        for await (const item of streamRunEvents({ db, bus, runId, afterSeq: 0, heartbeatMs: 600_000 })) {
          if (item.kind !== "event") continue;
          got.push(item.event);
          for (const waiter of waiting.filter((w) => w.seq <= item.event.seq)) waiter.resolve();
        }
        return got;
      })();
      return { first: reached(1), reached, events };
    }

    it("another instance hands small rows over from the notification, and reads a large range once for all its followers", async () => {
      const s = server();
      const there = await secondInstance();
      const instance = `carrier-${crypto.randomBytes(3).toString("hex")}`;
      const [runId] = await ownedRuns(s, instance, 1);
      const writer = journalWriterFor(s.db, s.bus);
      try {
        await writer.append(runId!, instance, [{ type: "text", payload: { delta: "opened." } }]);
        const followers = [follow(there.db, there.bus, runId!), follow(there.db, there.bus, runId!)];
        await Promise.all(followers.map((f) => f.first));
        // The first append's notification may reach the other instance after its followers read that row: wait until
        // it has, so that it is not counted below. (Notifications arrive in commit order.)
        await notificationsArrived(s.bus, there.bus);
        const before = { ...there.writer.stats };
        // Several flushes of small text (one per append, each awaited), then a row too large to travel, then the end.
        for (const piece of ["ä-one.", "two.", "three."]) await writer.append(runId!, instance, [{ type: "text", payload: { delta: piece } }]);
        const large = "L".repeat(CARRIED_BYTES * 3);
        const largeSeq = await writer.append(runId!, instance, [{ type: "text", payload: { delta: large } }]);
        // The end is written once the large row's read is over: written during it, the end would be read with it.
        await Promise.all(followers.map((f) => f.reached(largeSeq)));
        await writer.append(runId!, instance, [{ type: "run_completed", payload: { replyMessageId: crypto.randomUUID() } }]);
        const stored = await readRunEvents(s.db, runId!, 0, 10_000);
        for (const follower of followers) expect(await follower.events).toEqual(stored);
        // The three pieces and the end came with their notifications; the large row was read, once for both followers.
        expect(there.writer.stats.carried - before.carried).toBe(4);
        expect(there.writer.stats.reads - before.reads).toBe(1);
      } finally {
        await there.close();
      }
    });

    /**
     * Ends a run through `finishRun` (the statement that ends a run writes its terminal event itself) while two
     * followers watch it from a second instance; returns what they got, the second instance's writer's counts during
     * the end, and the journal reads the followers sent.
     */
    async function endWatchedFromElsewhere(s: ReturnType<typeof server>, event: Parameters<typeof finishRun>[2]["event"]) {
      const there = await secondInstance();
      const instance = `ender-${crypto.randomBytes(3).toString("hex")}`;
      const [runId] = await ownedRuns(s, instance, 1);
      const writer = journalWriterFor(s.db, s.bus);
      try {
        await writer.append(runId!, instance, [{ type: "text", payload: { delta: "all said." } }]);
        const { result, queries } = await recordQueries(async () => {
          const followers = [follow(there.db, there.bus, runId!), follow(there.db, there.bus, runId!)];
          await Promise.all(followers.map((f) => f.first));
          await notificationsArrived(s.bus, there.bus);
          const before = { ...there.writer.stats };
          const state = event.type === "run_completed" ? "succeeded" : event.type === "run_failed" ? "failed" : "cancelled";
          expect(await finishRun(s.db, s.bus, { runId: runId!, owner: instance, state, replyText: "all said.", event })).toBe(true);
          const got = await Promise.all(followers.map((f) => f.events));
          return { got, carried: there.writer.stats.carried - before.carried, reads: there.writer.stats.reads - before.reads };
        });
        const stored = await readRunEvents(s.db, runId!, 0, 10_000);
        expect(stored.at(-1)?.type).toBe(event.type);
        for (const got of result.got) expect(got).toEqual(stored);
        return { ...result, followerReads: queries.filter((q) => /from "run_events"/.test(q)).length };
      } finally {
        await there.close();
      }
    }

    it("another instance hands a run's end over from the notification of the statement that ended it: its followers do not read it", async () => {
      const ended = await endWatchedFromElsewhere(server(), { type: "run_completed", payload: { replyMessageId: crypto.randomUUID() } });
      expect(ended.carried).toBe(1);
      expect(ended.reads).toBe(0);
      // Each follower read the journal once, when it opened.
      expect(ended.followerReads).toBe(2);
    });

    it("an end too large to travel is read once there, for all of the run's followers", async () => {
      const message = "The model said: " + "x".repeat(CARRIED_BYTES * 3);
      const ended = await endWatchedFromElsewhere(server(), { type: "run_failed", payload: { code: "unavailable:model", message } });
      expect(ended.carried).toBe(0);
      expect(ended.reads).toBe(1);
      expect(ended.followerReads).toBe(2);
    });

    it("a flush of many runs whose rows are all just small enough to travel stays within PostgreSQL's notification size", async () => {
      const s = server();
      const there = await secondInstance();
      const instance = `wide-${crypto.randomBytes(3).toString("hex")}`;
      const runIds = await ownedRuns(s, instance, 60);
      const writer = journalWriterFor(s.db, s.bus);
      // Two bytes a character: the size that counts is in bytes.
      const piece = (i: number) => `${i}:${"ü".repeat(Math.floor((CARRIED_BYTES - 60) / 2))}`;
      try {
        await Promise.all(runIds.map((runId) => writer.append(runId, instance, [{ type: "text", payload: { delta: "opened." } }])));
        const followers = runIds.map((runId) => follow(there.db, there.bus, runId));
        await Promise.all(followers.map((f) => f.first));
        const before = { ...there.writer.stats, flushes: writer.stats.flushes };
        // Queued in one turn: one flush, one statement, its notifications split by size.
        await Promise.all(runIds.map((runId, i) => writer.append(runId, instance, [{ type: "text", payload: { delta: piece(i) } }])));
        expect(writer.stats.flushes - before.flushes).toBe(1);
        await Promise.all(runIds.map((runId) => writer.append(runId, instance, [{ type: "run_completed", payload: { replyMessageId: crypto.randomUUID() } }])));
        for (const [i, runId] of runIds.entries()) {
          const got = await followers[i]!.events;
          expect(textOf(got)).toBe(`opened.${piece(i)}`);
          expect(got).toEqual(await readRunEvents(s.db, runId, 0, 10_000));
        }
        expect(there.writer.stats.carried - before.carried).toBe(120);
        expect(there.writer.stats.reads - before.reads).toBe(0);
      } finally {
        await there.close();
      }
    });
  });
});
