import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Viewer } from "../access/access";
import { feedItemsForViewer } from "../access/reads";
import { feedItemForViewer } from "../access/redact";
import { runFactsCache } from "../access/run-facts-cache";
import { rowsOf, type Db, type Transaction } from "../db/client";
import { feedWriterFor } from "./feed-writer";
import { workspaces, type AgentRun } from "../db/schema";
import type { EventBus } from "../db/bus";
import { tailJournal, type TailItem } from "../db/journal-tail";
import { logError } from "../log";
import { DAY_MS, rangeFields, resolveRange } from "../billing/range";

export {
  feedFilterSchema,
  feedKinds,
  feedTopic,
  insertFeedItems,
  latestFeed,
  notifyFeed,
  readFeed,
  writeFeedItems,
  type FeedFilter,
  type FeedItemInput,
  type FeedItemView,
  type FeedKind,
  type FeedNotice,
  type WrittenFeed,
} from "./feed-store";
import { feedFilterMatches, insertFeedItems, latestFeed, notifyFeed, readFeed, type FeedFilter, type FeedItemInput, type FeedItemView } from "./feed-store";

/**
 * Appends feed items in their own transaction, then notifies: persist before
 * emit. Outside a transaction they go through the process's feed writer
 * (group commit: items appended at the same time share one transaction and
 * one notification per workspace); inside one they are part of it.
 */
export async function appendFeedItems(db: Db, bus: EventBus, items: FeedItemInput[]): Promise<void> {
  if (items.length === 0) return;
  if (!isTransaction(db)) return feedWriterFor(db, bus).append(items);
  const written = await db.transaction((tx) => insertFeedItems(tx, items));
  await notifyFeed(bus, written);
}

const isTransaction = (db: Db): db is Transaction => "rollback" in db;

/** A feed append that must never break what it reports on (a run, a decision). */
export async function recordFeed(db: Db, bus: EventBus, items: FeedItemInput[]): Promise<void> {
  await appendFeedItems(db, bus, items).catch((error: unknown) => logError("Could not write to the feed", error));
}

/**
 * The feed as one person may see it (the list route and anything rendering
 * the feed for a viewer): items about runs they may not open lose their text and ids.
 */
export async function feedForViewer(
  db: Db,
  workspaceId: string,
  viewer: Viewer,
  input: { after?: number; filter?: FeedFilter; limit: number },
): Promise<FeedItemView[]> {
  const items =
    input.after === undefined ? await latestFeed(db, workspaceId, input.filter, input.limit) : await readFeed(db, workspaceId, input.after, input.filter, input.limit);
  return feedItemsForViewer(db, workspaceId, viewer, items);
}

export async function currentFeedSeq(db: Db, workspaceId: string): Promise<number> {
  const [row] = await db.select({ seq: workspaces.feedSeq }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return row?.seq ?? 0;
}

export type FeedStreamItem = TailItem<FeedItemView>;

/**
 * Every feed item after `afterSeq`, then the live tail, each item shaped for
 * the viewer. Items this process's feed writer committed are handed over from
 * memory right after the commit; items written elsewhere (another process, a
 * caller's transaction) are read after their notification by that writer,
 * once for every stream of the workspace in this process. Either way the
 * stream follows the workspace's whole sequence and keeps what `filter`
 * matches, so a gap in the sequence always means "read the table". Who may
 * open each item's run is known once per run and process (`runFactsCache`):
 * a run's person, trigger and chat never change.
 */
export async function* streamFeed(options: {
  db: Db;
  bus: EventBus;
  workspaceId: string;
  viewer: Viewer;
  afterSeq: number;
  filter?: FeedFilter;
  signal?: AbortSignal;
  heartbeatMs?: number;
}): AsyncGenerator<FeedStreamItem> {
  const { db, bus, workspaceId, viewer } = options;
  const filter = options.filter ?? {};
  const writer = feedWriterFor(db, bus);
  const facts = runFactsCache(db);
  // The runs a batch names that this process does not know yet (started elsewhere) are asked for in one read as the
  // batch arrives, so the items, shaped one after another below, do not each wait for a read of their own.
  const withFacts = (items: FeedItemView[]) => {
    facts.prefetch(workspaceId, items.map((item) => item.runId));
    return items;
  };
  for await (const next of tailJournal<FeedItemView>({
    // The process's feed writer follows the workspace's notifications for every stream of it: its own items at their
    // commit, others' read once for all.
    subscribe: (wake) => writer.listen(workspaceId, { items: () => undefined, wake }),
    push: (deliver) => writer.listen(workspaceId, { items: (items) => deliver(withFacts(items)), wake: () => undefined }),
    read: async (after) => withFacts(await readFeed(db, workspaceId, after, {}, 500)),
    batchSize: 500,
    afterSeq: options.afterSeq,
    signal: options.signal,
    heartbeatMs: options.heartbeatMs,
  })) {
    if (next.kind === "heartbeat") {
      yield next;
      continue;
    }
    if (!feedFilterMatches(filter, next.item)) continue;
    const runId = next.item.runId;
    yield { kind: "item", item: feedItemForViewer(viewer, next.item, runId ? await facts.get(workspaceId, runId) : undefined) };
  }
}

/** Who-talks-to-whom range: ISO timestamps, `from` before `to`, at most 400 days (the last 7 days by default). */
export const matrixQuerySchema = z.object(rangeFields).transform((q) => resolveRange(q, 7 * DAY_MS));

/**
 * Who talks to whom between two times: message counts from each agent to each
 * other agent (a room post counts once for every other member of the room).
 */
export async function talkMatrix(db: Db, workspaceId: string, range: { from?: Date; to?: Date }) {
  const to = range.to ?? new Date();
  const from = range.from ?? new Date(to.getTime() - 7 * 24 * 3600 * 1000);
  const rows = rowsOf<{ from_agent: string; to_agent: string; n: number }>(
    await db.execute(sql`
      select from_agent, to_agent, count(*)::int as n from (
        select m.from_agent_id as from_agent, m.to_agent_id as to_agent
          from agent_messages m
         where m.workspace_id = ${workspaceId} and m.from_agent_id is not null and m.to_agent_id is not null
           and m.created_at >= ${from.toISOString()}::timestamptz and m.created_at < ${to.toISOString()}::timestamptz
        union all
        select m.from_agent_id, rm.agent_id
          from agent_messages m join room_members rm on rm.room_id = m.room_id and rm.agent_id <> m.from_agent_id
         where m.workspace_id = ${workspaceId} and m.from_agent_id is not null and m.room_id is not null
           and m.created_at >= ${from.toISOString()}::timestamptz and m.created_at < ${to.toISOString()}::timestamptz
      ) t group by from_agent, to_agent`),
  );
  return { from: from.toISOString(), to: to.toISOString(), cells: rows.map((r) => ({ from: r.from_agent, to: r.to_agent, count: Number(r.n) })) };
}

/** A run ended: one feed item with how. */
export async function recordRunFinished(
  deps: { db: Db; bus: EventBus },
  run: AgentRun,
  handle: string | undefined,
  state: "succeeded" | "failed" | "cancelled",
  error?: { code: string; message: string },
) {
  await recordFeed(deps.db, deps.bus, [
    {
      workspaceId: run.workspaceId,
      kind: "run_finished",
      agentId: run.agentId,
      runId: run.id,
      threadId: run.threadId,
      roomId: run.roomId,
      payload: { agent: handle ?? null, state, trigger: run.trigger, sessionId: run.sessionId, ...(error ?? {}) },
    },
  ]);
}
