import { and, asc, eq, gt, sql } from "drizzle-orm";
import { rowsOf, type Db } from "../db/client";
import { statement } from "../db/statements";
import { agentRuns, runEvents } from "../db/schema";
import { cleanDeep } from "../text";
import type { EventBus } from "../db/bus";
import { isTerminal, parseRunEvent, type RunEvent, type RunEventInput } from "./run-events";

export const LEASE_SECONDS = 30;

/** The run was cancelled, reaped or finished by someone else: its driver must stop writing. */
export class RunLostError extends Error {
  constructor(readonly runId: string) {
    super(`Run ${runId} is no longer driven by this process`);
    this.name = "RunLostError";
  }
}

export const runTopic = (runId: string) => `run:${runId}`;

/** One run's part of a journal write: who drives it (`null`: the system), its events, whether the last one ends it. */
export interface JournalRows {
  runId: string;
  owner: string | null;
  events: RunEventInput[];
}

/** Where a write's own statement sends its notification, when the bus is the database's LISTEN/NOTIFY. */
export interface InStatementNotice {
  channel: string;
  origin: string;
  topic: string;
  /** A run's rows travel with its range when they take at most this many bytes as JSON. */
  carriedBytes: number;
  /** The ranges are split into notifications of about this many bytes (PostgreSQL's limit is 8,000). */
  noticeBytes: number;
}

/**
 * The one statement that writes to run journals. A data-modifying CTE
 * allocates every run's sequence numbers with one conditional UPDATE of the
 * run rows and inserts the rows numbered from what it returned, so sequences
 * never repeat and only the process holding a run's claim can write to it: a
 * run with an `owner` must be `running`, claimed by that owner, with an open
 * journal (its lease is extended); `owner: null` writes as the system (the
 * sweeper, a decision on a suspended run, a cancel of a run nobody drives)
 * to any open journal. A terminal event closes the journal: after it nothing
 * is written, by anyone. One statement is its own transaction, so a write
 * of many runs is atomic without BEGIN and COMMIT; inside a caller's
 * transaction it joins it. With `notice`, the same statement sends the write's
 * notifications (the ranges written, with the rows of each run whose rows
 * are small), delivered when it commits. Returns each written run's last
 * sequence number; a run missing from it was lost (taken over, ended) and
 * none of its rows were written.
 */
export async function writeJournalRows(db: Db, batch: JournalRows[], at: Date, notice?: InStatementNotice): Promise<Map<string, number>> {
  for (const entry of batch) {
    const closes = entry.events.findIndex((e) => isTerminal(e.type));
    if (closes >= 0 && closes !== entry.events.length - 1) throw new Error("A terminal event must be the last one written.");
  }
  const runs = batch.map((e) => ({
    id: e.runId,
    o: e.owner,
    n: e.events.length,
    c: e.events.some((event) => isTerminal(event.type)),
    t: e.events.some((event) => event.type === "text"),
  }));
  // Payloads carry model and tool text: stored without NUL or lone surrogates, which PostgreSQL refuses.
  const rows = batch.flatMap((e) => e.events.map((event, k) => ({ r: e.runId, k, t: event.type, p: cleanDeep(event.payload) })));
  const result = await db.execute(sql`
    with runs as (
      select (x->>'id')::uuid as id, x->>'o' as owner, (x->>'n')::int as n, (x->>'c')::boolean as closing, (x->>'t')::boolean as has_text
      from jsonb_array_elements(${JSON.stringify(runs)}::jsonb) as x
    ),
    allocated as (
      update ${agentRuns} as r
      set last_seq = r.last_seq + runs.n,
          lease_expires_at = case when runs.owner is null then r.lease_expires_at else now() + make_interval(secs => ${LEASE_SECONDS}) end,
          journal_closed_at = case when runs.closing then now() else null end,
          -- The moment the run's first text was written: the throughput card's time to first token.
          first_token_at = case when runs.has_text then coalesce(r.first_token_at, now()) else r.first_token_at end
      from runs
      where r.id = runs.id and r.journal_closed_at is null
        and (runs.owner is null or (r.claimed_by = runs.owner and r.state = 'running'))
      returning r.id, r.last_seq, runs.n
    ),
    inserted as (
      insert into ${runEvents} (run_id, seq, type, payload, created_at)
      select a.id, a.last_seq - a.n + 1 + (x->>'k')::int, x->>'t', x->'p', ${at.toISOString()}::timestamptz
      from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) as x
      join allocated as a on a.id = (x->>'r')::uuid
      returning run_id, seq, type, payload
    )${notice ? sql`,
    -- One pass over the rows written, grouped by run (no join: the planner cannot tell how many rows these hold). A
    -- run's rows are put in JSON only when each is small, so a large tool result is not built for nothing.
    written as (
      select i.run_id as id, min(i.seq) as first, max(i.seq) as last, max(pg_column_size(i.payload)) as largest,
             json_agg(json_build_array(i.type, i.payload) order by i.seq) filter (where pg_column_size(i.payload) <= ${2 * notice.carriedBytes}::int) as rows
      from inserted as i
      group by i.run_id
    ),
    ranges as (
      select id, case when largest <= ${2 * notice.carriedBytes}::int and octet_length(rows::text) <= ${notice.carriedBytes}::int
                      then json_build_array(id, first, last, rows) else json_build_array(id, first, last) end as range
      from written
    ),
    notices as (
      select pg_notify(${notice.channel}, json_build_object('t', ${notice.topic}::text, 'm', json_build_object('o', ${notice.origin}::text,
        'a', ${at.toISOString()}::text, 'r', json_agg(g.range order by g.id)))::text)
      from (
        select id, range, sum(octet_length(range::text)) over (order by id rows between unbounded preceding and current row) / ${notice.noticeBytes}::int as chunk
        from ranges
      ) as g
      group by g.chunk
    )
    select id, last_seq, (select count(*) from notices) as notices from allocated` : sql`
    select id, last_seq from allocated`}
  `);
  return new Map(rowsOf<{ id: string; last_seq: number }>(result).map((row) => [row.id, Number(row.last_seq)]));
}

/**
 * Writes one run's events inside the caller's transaction (a state change
 * and its events commit together) and returns the last sequence number, or
 * throws `RunLostError` when the run is not `owner`'s to write (see
 * `writeJournalRows`). Call `notifyRun` after the transaction commits.
 */
export async function insertRunEvents(tx: Db, runId: string, owner: string | null, events: RunEventInput[]): Promise<number> {
  const written = await writeJournalRows(tx, [{ runId, owner, events }], new Date());
  const last = written.get(runId);
  if (last === undefined) throw new RunLostError(runId);
  return last;
}

/**
 * Tells subscribers that a run's journal grew; they read the rows themselves.
 * `origin` names the journal writer whose followers in this process were
 * handed the rows from memory already, so they skip the notice.
 */
export async function notifyRun(bus: EventBus, runId: string, seq: number, origin?: string): Promise<void> {
  await bus.publish(runTopic(runId), origin ? { runId, seq, o: origin } : { runId, seq });
}

// Every stream's first read, and every read a follower makes to fill a gap.
const runEventsAfter = statement((db) =>
  db
    .select({ seq: runEvents.seq, type: runEvents.type, payload: runEvents.payload, createdAt: runEvents.createdAt })
    .from(runEvents)
    .where(and(eq(runEvents.runId, sql.placeholder("runId")), gt(runEvents.seq, sql.placeholder("afterSeq"))))
    .orderBy(asc(runEvents.seq))
    .limit(sql.placeholder("limit"))
    .prepare("run_events_after"),
);

export async function readRunEvents(db: Db, runId: string, afterSeq: number, limit = 500): Promise<RunEvent[]> {
  const rows = await runEventsAfter(db).execute({ runId, afterSeq, limit });
  return rows
    .map((r) => parseRunEvent(r.type, r.seq, r.createdAt.toISOString(), r.payload))
    .filter((e): e is RunEvent => e !== null);
}
