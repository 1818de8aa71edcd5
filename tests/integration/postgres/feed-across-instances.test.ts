import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agentRuns, feedItems } from "../../../lib/db/schema";
import { openDatabase, rowsOf } from "../../../lib/db/client";
import { recordAudit } from "../../../lib/audit";
import { textTurn } from "../../../lib/models/scripted";
import { createChat } from "../../../lib/chats/chats";
import { appendFeedItems, readFeed, writeFeedItems, type FeedItemInput } from "../../../lib/feed/feed";
import { feedWriterFor } from "../../../lib/feed/feed-writer";
import { createPostgresBus, type EventBus } from "../../../lib/db/bus";
import type { Db } from "../../../lib/db/client";
import { followFeed } from "../../support/feed";
import { demoOwner } from "../../support/fixtures";
import { makeAgent, useScriptedModel, waitForRun } from "../../support/runtime";
import { useTestServer } from "../../support/server";

const item = (workspaceId: string, n: string): FeedItemInput => ({ workspaceId, kind: "run_started", payload: { n } });

/** Follows a workspace's feed as its owner; no heartbeat within the test, so only notices and hand-overs carry it. */
const follow = (db: Db, bus: EventBus, workspaceId: string, userId: string, afterSeq: number, count: number) =>
  followFeed({ db, bus, workspaceId, viewer: { userId, role: "owner" }, afterSeq, heartbeatMs: 600_000 }, count).done.then((d) => d.items);


// Two connections wait for each other, and two processes share a database, only on PostgreSQL (PGlite has one
// connection and is one process's own): these tests run in that leg only.
describe("the feed across connections and instances on one PostgreSQL database", () => {
  const server = useTestServer();

  it("a flush does not deadlock with a transaction that holds one of its runs and then writes a row of its workspace (an approval's grant)", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId);
    useScriptedModel(s, [textTurn(["done"])]);
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
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

  it("two instances see the same feed; each reads what the other announced once for all its streams", async () => {
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
