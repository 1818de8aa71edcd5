import { and, asc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { statement } from "../db/statements";
import { agentRuns, runEvents } from "../db/schema";
import { cleanDeep } from "../text";
import type { EventBus } from "../runtime/bus";
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

/**
 * Inserts events into a run's journal inside the caller's transaction and
 * returns the last sequence number. The numbers come from one conditional
 * UPDATE of the run row, so only the process holding the run's claim can
 * write, and sequences never repeat. `owner: null` writes as the system
 * (sweeper, a decision on a suspended run, a cancel of a run nobody drives).
 * A terminal event closes the journal: after it nothing is written, by
 * anyone (the update finds no row and this throws `RunLostError`).
 * Call `notifyRun` after the transaction commits.
 */
export async function insertRunEvents(tx: Db, runId: string, owner: string | null, events: RunEventInput[]): Promise<number> {
  const closes = events.some((e) => isTerminal(e.type));
  if (closes && !isTerminal(events[events.length - 1]!.type)) throw new Error("A terminal event must be the last one written.");
  const [row] = await tx
    .update(agentRuns)
    .set({
      lastSeq: sql`${agentRuns.lastSeq} + ${events.length}`,
      ...(owner ? { leaseExpiresAt: sql`now() + make_interval(secs => ${LEASE_SECONDS})` } : {}),
      ...(closes ? { journalClosedAt: sql`now()` } : {}),
      // The moment the run's first text was written: the throughput card's time to first token.
      ...(events.some((e) => e.type === "text") ? { firstTokenAt: sql`coalesce(${agentRuns.firstTokenAt}, now())` } : {}),
    })
    .where(
      and(
        eq(agentRuns.id, runId),
        isNull(agentRuns.journalClosedAt),
        owner ? and(eq(agentRuns.claimedBy, owner), inArray(agentRuns.state, ["running"])) : undefined,
      ),
    )
    .returning({ lastSeq: agentRuns.lastSeq });
  if (!row) throw new RunLostError(runId);
  const first = row.lastSeq - events.length + 1;
  // Payloads carry model and tool text: stored without NUL or lone surrogates, which PostgreSQL refuses.
  await tx.insert(runEvents).values(events.map((e, i) => ({ runId, seq: first + i, type: e.type, payload: cleanDeep(e.payload) })));
  return row.lastSeq;
}

/**
 * Tells subscribers that a run's journal grew; they read the rows themselves.
 * `origin` names the journal writer whose followers in this process were
 * handed the rows from memory already, so they skip the notice.
 */
export async function notifyRun(bus: EventBus, runId: string, seq: number, origin?: string): Promise<void> {
  await bus.publish(runTopic(runId), origin ? { runId, seq, o: origin } : { runId, seq });
}

/** Appends events in their own transaction, then notifies: persist before emit. */
export async function appendRunEvents(
  db: Db,
  bus: EventBus,
  runId: string,
  owner: string | null,
  events: RunEventInput[],
): Promise<number> {
  if (events.length === 0) return 0;
  const lastSeq = await db.transaction((tx) => insertRunEvents(tx, runId, owner, events));
  await notifyRun(bus, runId, lastSeq);
  return lastSeq;
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
