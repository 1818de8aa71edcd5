import { and, asc, eq, gt, inArray, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "../db/client";
import { feedItems, workspaces } from "../db/schema";
import type { EventBus } from "../db/bus";
import { AppError } from "../errors";

/**
 * The feed's table: writing items (numbered per workspace), the notification
 * that follows a commit, and reading items back. The process's feed writer
 * and the feed's streams both build on this module; neither on the other.
 */
export const feedTopic = (workspaceId: string) => `feed:${workspaceId}`;

export const feedKinds = [
  "agent_message",
  "room_post",
  "run_started",
  "run_finished",
  "approval_requested",
  "approval_decided",
  "budget_alert",
  "thread_limit",
  "agent_paused",
  "mission_started",
  "mission_handoff",
  "mission_node_waiting",
  "mission_finished",
] as const;
export type FeedKind = (typeof feedKinds)[number];

export interface FeedItemInput {
  workspaceId: string;
  kind: FeedKind;
  agentId?: string | null;
  targetAgentId?: string | null;
  roomId?: string | null;
  threadId?: string | null;
  runId?: string | null;
  stepId?: string | null;
  approvalId?: string | null;
  payload: Record<string, unknown>;
}

/** Where a statement that writes feed items sends its own notification (PostgreSQL's LISTEN/NOTIFY), and who it names. */
export interface FeedNotice {
  channel: string;
  origin: string;
}

/**
 * Writes feed items as one statement, numbering them from each workspace's
 * own sequence: a data-modifying CTE bumps every workspace's counter once
 * (locking its row until the end of the statement or the caller's
 * transaction) and inserts the rows numbered from what it returned, in the
 * order given. Outside a transaction the statement is its own: one round trip
 * instead of BEGIN, a counter and an insert per workspace, and COMMIT. With
 * `notice`, the same statement sends each workspace's notification, delivered
 * when it commits. A workspace that does not exist gets no sequence and none
 * of its items are written: it is missing from the result.
 */
export async function writeFeedItems(db: Db, items: FeedItemInput[], at = new Date(), notice?: FeedNotice): Promise<WrittenFeed[]> {
  if (items.length === 0) return [];
  // By the id as PostgreSQL writes a uuid (lower case), which is how the rows come back.
  const groups = new Map<string, FeedItemInput[]>();
  for (const item of items) {
    const id = item.workspaceId.toLowerCase();
    const group = groups.get(id);
    if (group) group.push(item);
    else groups.set(id, [item]);
  }
  const counts = [...groups].map(([id, group]) => ({ id, n: group.length }));
  const rows = [...groups].flatMap(([id, group]) => group.map((item, k) => ({ w: id, k, ...storedFields(item) })));
  const result = await db.execute(sql`
    with counts as (
      select (x->>'id')::uuid as id, (x->>'n')::int as n from jsonb_array_elements(${JSON.stringify(counts)}::jsonb) as x
    ),
    -- The workspace rows are locked in one order, so that two flushes naming the same workspaces cannot deadlock; with
    -- the lock the counter's update takes anyway (no key update), so a transaction that holds a run of the flush and
    -- then writes a row pointing at the workspace (a grant, an audit entry) is not kept waiting by it.
    locked as (
      select w.id from ${workspaces} as w join counts on counts.id = w.id order by w.id for no key update of w
    ),
    allocated as (
      update ${workspaces} as w set feed_seq = w.feed_seq + counts.n from counts join locked on locked.id = counts.id where w.id = counts.id
      returning w.id, w.feed_seq as last, counts.n
    ),
    inserted as (
      insert into ${feedItems} (workspace_id, seq, kind, agent_id, target_agent_id, room_id, thread_id, run_id, step_id, approval_id, payload, created_at)
      select a.id, a.last - a.n + 1 + (x->>'k')::int, x->>'kind', (x->>'agentId')::uuid, (x->>'targetAgentId')::uuid, (x->>'roomId')::uuid,
             (x->>'threadId')::uuid, (x->>'runId')::uuid, (x->>'stepId')::uuid, (x->>'approvalId')::uuid, x->'payload', ${at.toISOString()}::timestamptz
      from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) as x
      join allocated as a on a.id = (x->>'w')::uuid
    )${notice ? sql`,
    notices as (
      select pg_notify(${notice.channel}, json_build_object('t', ${feedTopic("")}::text || a.id::text,
        'm', json_build_object('seq', a.last, 'f', a.last - a.n + 1, 'o', ${notice.origin}::text))::text)
      from allocated as a
    )
    select id, last, n, (select count(*) from notices) as notices from allocated` : sql`
    select id, last, n from allocated`}
  `);
  const iso = at.toISOString();
  return rowsOf<{ id: string; last: number | string }>(result).map((row) => {
    const group = groups.get(row.id)!;
    const first = Number(row.last) - group.length + 1;
    // What a reader of the rows gets (the payload as stored JSON), for followers fed from memory after the commit.
    const items = group.map((item, i) => ({ seq: first + i, ...storedFields(item), payload: JSON.parse(JSON.stringify(item.payload)) as Record<string, unknown>, at: iso }));
    return { workspaceId: row.id, seq: Number(row.last), items };
  });
}

/** An item's columns as stored, under the names a `FeedItemView` gives them. */
const storedFields = (item: FeedItemInput) => ({
  kind: item.kind as string,
  agentId: item.agentId ?? null,
  targetAgentId: item.targetAgentId ?? null,
  roomId: item.roomId ?? null,
  threadId: item.threadId ?? null,
  runId: item.runId ?? null,
  stepId: item.stepId ?? null,
  approvalId: item.approvalId ?? null,
  payload: item.payload,
});

/**
 * Inserts feed items inside the caller's transaction (one statement, see
 * `writeFeedItems`); call `notifyFeed` after the commit. Readers get the rows
 * from the table, so a reconnecting browser sees what a live one saw.
 */
export async function insertFeedItems(tx: Db, items: FeedItemInput[], at = new Date()): Promise<WrittenFeed[]> {
  const written = await writeFeedItems(tx, items, at);
  if (written.length !== new Set(items.map((i) => i.workspaceId.toLowerCase())).size) throw new AppError("not_found:workspace", "A feed item names a workspace that does not exist.");
  return written;
}

/** A workspace's items written by one insert: `seq` is the newest; `items` run without a gap up to it. */
export interface WrittenFeed {
  workspaceId: string;
  seq: number;
  items: FeedItemView[];
}

/**
 * Tells followers that a workspace's feed grew. `origin` names the writer
 * whose followers in this process were already handed the items from memory,
 * so they skip the notice; everyone else reads the rows.
 */
export async function notifyFeed(bus: EventBus, written: WrittenFeed[], origin?: string): Promise<void> {
  for (const w of written) {
    const first = w.items[0]?.seq ?? w.seq;
    await bus.publish(feedTopic(w.workspaceId), origin ? { seq: w.seq, f: first, o: origin } : { seq: w.seq, f: first });
  }
}

export const feedFilterSchema = z.object({
  agent: z.uuid().optional(),
  /** With `agent`: only what that agent sent to this one (a cell of who talks to whom); alone, what this one was sent. */
  to: z.uuid().optional(),
  room: z.uuid().optional(),
  thread: z.uuid().optional(),
  kind: z
    .string()
    .optional()
    .transform((v) => (v ? v.split(",").filter((k): k is FeedKind => (feedKinds as readonly string[]).includes(k)) : undefined)),
});
export type FeedFilter = Partial<z.infer<typeof feedFilterSchema>>;

export interface FeedItemView {
  seq: number;
  kind: string;
  agentId: string | null;
  targetAgentId: string | null;
  roomId: string | null;
  threadId: string | null;
  runId: string | null;
  stepId: string | null;
  approvalId: string | null;
  payload: Record<string, unknown>;
  at: string;
}

/** `filterWhere` for items already in memory: the same conditions. */
export function feedFilterMatches(filter: FeedFilter, item: FeedItemView): boolean {
  if (filter.to) {
    if (item.targetAgentId !== filter.to || (filter.agent && item.agentId !== filter.agent)) return false;
  } else if (filter.agent && item.agentId !== filter.agent && item.targetAgentId !== filter.agent) return false;
  if (filter.room && item.roomId !== filter.room) return false;
  if (filter.thread && item.threadId !== filter.thread) return false;
  if (filter.kind && filter.kind.length > 0 && !filter.kind.includes(item.kind as FeedKind)) return false;
  return true;
}

function filterWhere(workspaceId: string, filter: FeedFilter): SQL[] {
  const where: SQL[] = [eq(feedItems.workspaceId, workspaceId)];
  if (filter.to) {
    where.push(eq(feedItems.targetAgentId, filter.to));
    if (filter.agent) where.push(eq(feedItems.agentId, filter.agent));
  } else if (filter.agent) where.push(sql`(${feedItems.agentId} = ${filter.agent} or ${feedItems.targetAgentId} = ${filter.agent})`);
  if (filter.room) where.push(eq(feedItems.roomId, filter.room));
  if (filter.thread) where.push(eq(feedItems.threadId, filter.thread));
  if (filter.kind && filter.kind.length > 0) where.push(inArray(feedItems.kind, filter.kind));
  return where;
}

const toView = (r: Omit<typeof feedItems.$inferSelect, "payload"> & { payload: unknown }): FeedItemView => ({
  seq: r.seq,
  kind: r.kind,
  agentId: r.agentId,
  targetAgentId: r.targetAgentId,
  roomId: r.roomId,
  threadId: r.threadId,
  runId: r.runId,
  stepId: r.stepId,
  approvalId: r.approvalId,
  payload: r.payload as Record<string, unknown>,
  at: r.createdAt.toISOString(),
});

export async function readFeed(db: Db, workspaceId: string, afterSeq: number, filter: FeedFilter = {}, limit = 500): Promise<FeedItemView[]> {
  const rows = await db
    .select()
    .from(feedItems)
    .where(and(...filterWhere(workspaceId, filter), gt(feedItems.seq, afterSeq)))
    .orderBy(asc(feedItems.seq))
    .limit(limit);
  return rows.map(toView);
}

/** The newest items (for a first page load), oldest first. */
export async function latestFeed(db: Db, workspaceId: string, filter: FeedFilter = {}, limit = 200): Promise<FeedItemView[]> {
  const rows = await db
    .select()
    .from(feedItems)
    .where(and(...filterWhere(workspaceId, filter)))
    .orderBy(sql`${feedItems.seq} desc`)
    .limit(limit);
  return rows.reverse().map(toView);
}
