import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { recordQueries } from "../../lib/db/query-count";
import { createLocalBus } from "../../lib/db/bus";
import type { RunEvent } from "../../lib/journal/run-events";
import { readRunEvents, RunLostError } from "../../lib/journal/run-journal-store";
import { journalWriterFor } from "../../lib/journal/run-journal-writer";
import { createChatRun, finishRun } from "../../lib/runs";
import { createChat } from "../../lib/chats/chats";
import { streamRunEvents } from "../../lib/runtime/stream";
import { demoOwner } from "../support/fixtures";
import { makeAgent, routeModel, textOf } from "../support/runtime";
import { useTestServer } from "../support/server";
import { collect, countingModel, piecesOf, seqsAreDense } from "../support/journal";

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
        const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
        const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: key });
        // Two live subscribers per run. No heartbeat within the test's time: nothing but the writer's hand-over can
        // carry them to the end.
        const live = [
          collect({ db: s.db, bus: s.bus, runId, afterSeq: 0, heartbeatMs: 600_000 }),
          collect({ db: s.db, bus: s.bus, runId, afterSeq: 0, heartbeatMs: 600_000 }),
        ];
        return { key, runId, live };
      }),
    );
    for (const run of runs) {
      const [first, second] = await Promise.all(run.live);
      const expected = piecesOf(run.key, 40).join("");
      for (const events of [first!, second!]) {
        expect(textOf(events)).toBe(expected);
        expect(seqsAreDense(events)).toBe(true);
        expect(events.at(-1)?.type).toBe("run_completed");
      }
      const stored = await readRunEvents(s.db, run.runId, 0, 10_000);
      expect(first).toEqual(stored);
      expect(second).toEqual(stored);
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
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
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
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
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
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
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
      const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
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
});
