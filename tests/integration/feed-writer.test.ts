import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { feedItems } from "../../lib/db/schema";
import { recordQueries } from "../../lib/db/query-count";
import { appendFeedItems, feedTopic, readFeed, type FeedItemInput } from "../../lib/feed/feed";
import { feedWriterFor } from "../../lib/feed/feed-writer";
import { demoOwner } from "../support/fixtures";
import { useTestServer } from "../support/server";

const item = (workspaceId: string, n: string): FeedItemInput => ({ workspaceId, kind: "run_started", payload: { n } });

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
});
