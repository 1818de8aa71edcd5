import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agentRuns, feedItems } from "../../lib/db/schema";
import { openDatabase, rowsOf } from "../../lib/db/client";
import { recordAudit } from "../../lib/audit";
import { textTurn } from "../../lib/models/scripted";
import { createSession } from "../../lib/runtime/sessions";
import { recordQueries } from "../../lib/db/query-count";
import { appendFeedItems, feedTopic, readFeed, writeFeedItems, type FeedItemInput } from "../../lib/feed/feed";
import { feedWriterFor } from "../../lib/feed/feed-writer";
import { createPostgresBus, type EventBus } from "../../lib/runtime/bus";
import type { Db } from "../../lib/db/client";
import { followFeed } from "../support/feed";
import { demoOwner } from "../support/fixtures";
import { makeAgent, useScriptedModel, waitForRun } from "../support/runtime";
import { useTestServer } from "../support/server";

const item = (workspaceId: string, n: string): FeedItemInput => ({ workspaceId, kind: "run_started", payload: { n } });

/** Follows a workspace's feed as its owner; no heartbeat within the test, so only notices and hand-overs carry it. */
const follow = (db: Db, bus: EventBus, workspaceId: string, userId: string, afterSeq: number, count: number) =>
  followFeed({ db, bus, workspaceId, viewer: { userId, role: "owner" }, afterSeq, heartbeatMs: 600_000 }, count).done.then((d) => d.items);

describe("the group-committing feed writer", () => {
  const server = useTestServer();

  it("writes items appended at the same time in one transaction, numbered in arrival order, with one notification after the commit", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const writer = feedWriterFor(s.db, s.bus);
    const before = { ...writer.stats };
    const start = (await readFeed(s.db, owner.workspaceId, 0, {}, 10_000)).at(-1)?.seq ?? 0;
    const notices: { seq: number; stored: number }[] = [];
    const reads: Promise<void>[] = [];
    let heard: () => void = () => undefined;
    const unsubscribe = s.bus.subscribe(feedTopic(owner.workspaceId), (message) => {
      // What a reader finds when the notification arrives: everything it announces is already committed.
      reads.push(
        readFeed(s.db, owner.workspaceId, start, {}, 10_000).then((rows) => {
          notices.push({ seq: Number(message.seq), stored: rows.length });
          heard();
        }),
      );
    });
    const names = Array.from({ length: 20 }, (_, i) => `item-${i}`);
    await Promise.all(names.map((n) => appendFeedItems(s.db, s.bus, [item(owner.workspaceId, n)])));
    expect(writer.stats.flushes - before.flushes).toBe(1);
    expect(writer.stats.items - before.items).toBe(20);
    // One more item, on its own: its notification comes after the batch's (one connection, in order), so every
    // notification of the batch has arrived once it has.
    const last = new Promise<void>((resolve) => (heard = () => notices.some((n) => n.seq === start + 21) && resolve()));
    await appendFeedItems(s.db, s.bus, [item(owner.workspaceId, "after")]);
    await last;
    await Promise.all(reads);
    unsubscribe();

    const rows = await readFeed(s.db, owner.workspaceId, start, {}, 10_000);
    expect(rows.map((r) => r.payload.n)).toEqual([...names, "after"]);
    expect(rows.map((r) => r.seq)).toEqual([...names, "after"].map((_, i) => start + 1 + i));
    // One notification per flush, and a reader woken by one finds everything it announces (reads run concurrently,
    // so a read may also find what a later flush committed meanwhile).
    const heardInOrder = [...notices].sort((a, b) => a.seq - b.seq);
    expect(heardInOrder.map((n) => n.seq)).toEqual([start + 20, start + 21]);
    for (const n of heardInOrder) expect(n.stored).toBeGreaterThanOrEqual(n.seq - start);
  });

  it("writes a flush as one statement: no transaction block, one insert for every workspace's items", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const { queries } = await recordQueries(() => Promise.all(["x", "y", "z"].map((n) => appendFeedItems(s.db, s.bus, [item(owner.workspaceId, n)]))));
    expect(queries).toHaveLength(1);
    expect(queries[0]).toMatch(/insert into "feed_items"/);
    // On PostgreSQL the statement sends the notification itself; the in-memory bus is told without a statement.
    if (process.env.TEST_DRIVER === "postgres") expect(queries[0]).toMatch(/pg_notify/);
    else expect(queries[0]).not.toMatch(/pg_notify/);
  });

  it("keeps the items of other appenders when one appender's items cannot be written", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const start = (await readFeed(s.db, owner.workspaceId, 0, {}, 10_000)).at(-1)?.seq ?? 0;
    const results = await Promise.allSettled([
      appendFeedItems(s.db, s.bus, [item(owner.workspaceId, "first")]),
      // A workspace that does not exist: no sequence to number the item from.
      appendFeedItems(s.db, s.bus, [item(crypto.randomUUID(), "nowhere")]),
      appendFeedItems(s.db, s.bus, [item(owner.workspaceId, "second")]),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const rows = await readFeed(s.db, owner.workspaceId, start, {}, 10_000);
    expect(rows.map((r) => r.payload.n)).toEqual(["first", "second"]);
  });

  it("a workspace id written in capitals names the same workspace: its items are written once and the appender is answered", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const start = (await readFeed(s.db, owner.workspaceId, 0, {}, 10_000)).at(-1)?.seq ?? 0;
    await appendFeedItems(s.db, s.bus, [item(owner.workspaceId.toUpperCase(), "loud")]);
    const rows = await readFeed(s.db, owner.workspaceId, start, {}, 10_000);
    expect(rows.map((r) => [r.seq, r.payload.n])).toEqual([[start + 1, "loud"]]);
  });

  it("tries each appender alone when a batch cannot be written: an item naming a deleted agent fails only its own appender", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const start = (await readFeed(s.db, owner.workspaceId, 0, {}, 10_000)).at(-1)?.seq ?? 0;
    const results = await Promise.allSettled([
      appendFeedItems(s.db, s.bus, [item(owner.workspaceId, "before")]),
      // No such agent: the foreign key refuses the row, and with it the whole statement.
      appendFeedItems(s.db, s.bus, [{ ...item(owner.workspaceId, "ghost"), agentId: crypto.randomUUID() }]),
      appendFeedItems(s.db, s.bus, [item(owner.workspaceId, "after")]),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const rows = await readFeed(s.db, owner.workspaceId, start, {}, 10_000);
    expect(rows.map((r) => r.payload.n)).toEqual(["before", "after"]);
    expect(rows.map((r) => r.seq)).toEqual([start + 1, start + 2]);
  });

  it("writes inside the caller's transaction when given one: a rollback leaves nothing", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const marker = `rolled-back-${crypto.randomBytes(3).toString("hex")}`;
    await expect(
      s.db.transaction(async (tx) => {
        await appendFeedItems(tx, s.bus, [item(owner.workspaceId, marker)]);
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    const rows = await s.db.select().from(feedItems).where(eq(feedItems.workspaceId, owner.workspaceId));
    expect(rows.filter((r) => (r.payload as { n?: string }).n === marker)).toHaveLength(0);
  });

  // Two processes share a database only on PostgreSQL (PGlite is one process's own): this one runs in that leg.
  // PostgreSQL only: PGlite has one connection, so two transactions never wait for each other there.
  if (process.env.TEST_DRIVER === "postgres") it("a flush does not deadlock with a transaction that holds one of its runs and then writes a row of its workspace (an approval's grant)", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId);
    useScriptedModel(s, [textTurn(["done"])]);
    const session = await createSession(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "hello" });
    await waitForRun(s.db, runId);
    const waiting = async () => rowsOf<{ n: number }>(await s.db.execute(sql`select count(*)::int as n from pg_locks where not granted`))[0]!.n;

    let flushed: Promise<unknown> | undefined;
    await s.db.transaction(async (tx) => {
      // As a decision does: the run locked first…
      await tx.select({ id: agentRuns.id }).from(agentRuns).where(eq(agentRuns.id, runId)).for("update");
      // …while a flush naming that run starts: it takes its workspace's counter, then waits for the run…
      flushed = writeFeedItems(s.db, [{ workspaceId: owner.workspaceId, kind: "run_finished", runId, payload: { state: "succeeded", check: "locks" } }]);
      for (let i = 0; i < 200 && (await waiting()) === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await waiting()).toBeGreaterThan(0);
      // …then a row of the workspace is written (its key is checked against the workspace's row), and the decision commits.
      await recordAudit(tx, { workspaceId: owner.workspaceId, actor: { kind: "system" }, action: "run.checked", target: { type: "run", id: runId } });
    });
    const [written] = (await flushed) as { seq: number }[];
    const rows = await s.db.select().from(feedItems).where(and(eq(feedItems.workspaceId, owner.workspaceId), eq(feedItems.seq, written!.seq)));
    expect(rows.map((r) => ({ runId: r.runId, payload: r.payload }))).toEqual([{ runId, payload: { state: "succeeded", check: "locks" } }]);
  });

  if (process.env.TEST_DRIVER === "postgres") it("two instances see the same feed; each reads what the other announced once for all its streams", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const url = process.env.DATABASE_URL!;
    const other = await openDatabase({ driver: "postgres", url });
    const otherBus = await createPostgresBus(url);
    try {
      const start = (await readFeed(s.db, owner.workspaceId, 0, {}, 10_000)).at(-1)?.seq ?? 0;
      const names = Array.from({ length: 40 }, (_, i) => `two-${i}`);
      const streams = [
        ...[1, 2, 3].map(() => follow(s.db, s.bus, owner.workspaceId, owner.id, start, names.length)),
        ...[1, 2, 3].map(() => follow(other.db, otherBus, owner.workspaceId, owner.id, start, names.length)),
      ];
      const theirs = feedWriterFor(other.db, otherBus);
      const ours = feedWriterFor(s.db, s.bus);
      const before = { theirs: { ...theirs.stats }, ours: { ...ours.stats } };
      // Half the items through each instance's writer, interleaved.
      await Promise.all(names.map((n, i) => appendFeedItems(i % 2 === 0 ? s.db : other.db, i % 2 === 0 ? s.bus : otherBus, [item(owner.workspaceId, n)])));
      const seen = await Promise.all(streams);
      const table = await readFeed(s.db, owner.workspaceId, start, {}, 10_000);
      expect(table.map((r) => r.payload.n).sort()).toEqual([...names].sort());
      for (const items of seen) expect(items).toEqual(table);
      // Each instance read the other's flushes once for its three streams, never more often than the other flushed.
      expect(ours.stats.reads - before.ours.reads).toBeGreaterThan(0);
      expect(ours.stats.reads - before.ours.reads).toBeLessThanOrEqual(theirs.stats.flushes - before.theirs.flushes);
      expect(theirs.stats.reads - before.theirs.reads).toBeLessThanOrEqual(ours.stats.flushes - before.ours.flushes);
    } finally {
      await otherBus.close();
      await other.close();
    }
  });
});
