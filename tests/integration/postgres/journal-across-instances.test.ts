import crypto from "node:crypto";
import os from "node:os";
import { describe, expect, it } from "vitest";
import { openDatabase, type Db } from "../../../lib/db/client";
import { recordQueries } from "../../../lib/db/query-count";
import { createPostgresBus, type EventBus } from "../../../lib/db/bus";
import type { RunEvent } from "../../../lib/journal/run-events";
import { readRunEvents } from "../../../lib/journal/run-journal-store";
import { CARRIED_BYTES, journalWriterFor } from "../../../lib/journal/run-journal-writer";
import { createRuntime } from "../../../lib/runtime/runtime";
import { createChatRun, finishRun } from "../../../lib/runs";
import { createChat } from "../../../lib/chats/chats";
import { streamRunEvents } from "../../../lib/runtime/stream";
import { createModelResolver, modelConfigFromEnv, type ResolvedModel } from "../../../lib/models/registry";
import { createToolRegistry } from "../../../lib/tools/registry";
import { demoOwner } from "../../support/fixtures";
import { makeAgent, routeModel, textOf } from "../../support/runtime";
import { useTestServer } from "../../support/server";
import { collect, countingModel, piecesOf } from "../../support/journal";

// Two processes share a database only on PostgreSQL (PGlite is one process's own): these tests run in that leg only.
describe("the journal across instances on one PostgreSQL database", () => {
  const server = useTestServer();

  it("two instances on one PostgreSQL database see the same sequence", async () => {
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
      fetchAllow: [],
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
          const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
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

  describe("rows that travel with the notification", () => {
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
          const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
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
