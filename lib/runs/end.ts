// How a run ends: by its driver, once, with its terminal event; by a cancel it is asked for; or from outside its driver
// (a person stopping it, the sweeper, a mission stopped, a door session that ended).
import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { rowsOf, type Database, type Db } from "../db/client";
import { agentRuns, agents, approvals, messages, runEvents } from "../db/schema";
import { cleanDeep } from "../text";
import { recordFeed, recordRunFinished } from "../feed/feed";
import { approvalsTopic } from "../safety/approvals";
import type { EventBus } from "../db/bus";
import { withDbRetry } from "../db/retry";
import { parseRunEvent, type TerminalEventInput } from "../journal/run-events";
import { insertRunEvents, notifyRun } from "../journal/run-journal-store";
import { CARRIED_BYTES, journalTopic, journalWriterFor } from "../journal/run-journal-writer";
import { journalText } from "./run-reads";
import { telemetryOf } from "../telemetry/telemetry";

/** Ends the run we drive, once, with its terminal event; false when it was no longer ours to end. */
export async function finishRun(
  db: Db,
  bus: EventBus,
  input: {
    runId: string;
    owner: string;
    state: "succeeded" | "failed" | "cancelled";
    replyText: string;
    code?: string;
    message?: string;
    event: TerminalEventInput;
    /**
     * Called once the end is committed (a mission's next turn need not wait for anything else). On PostgreSQL the
     * notification goes out with the commit, so subscribers elsewhere may hear of the end first.
     */
    committed?: () => void;
  },
): Promise<boolean> {
  const event = { type: input.event.type, payload: cleanDeep(input.event.payload) };
  // The process's journal writer hands the terminal event to the run's followers here from memory; the notification
  // names it, so they skip it. Other processes take it from the notification (on PostgreSQL), or read it.
  const writer = journalWriterFor(db as Database, bus);
  const at = new Date().toISOString();
  const payload = JSON.stringify(event.payload);
  // One statement: the run ended and unclaimed, its reply kept, the terminal event written at the next sequence number
  // (closing the journal), and on PostgreSQL the notification sent, delivered at commit.
  const result = await withDbRetry(() =>
    db.execute(sql`
      with ended as (
        update ${agentRuns} as r
        set state = ${input.state}::run_state, error = ${input.message ?? null}::text, error_code = ${input.code ?? null}::text,
            claimed_by = null, lease_expires_at = null, checkpoint = null, finished_at = ${at}::timestamptz,
            last_seq = r.last_seq + 1, journal_closed_at = now(), updated_at = now()
        where r.id = ${input.runId} and r.claimed_by = ${input.owner} and r.state = 'running' and r.journal_closed_at is null
        returning r.id, r.last_seq, r.reply_message_id
      ),
      reply as (
        update ${messages} set content = ${input.replyText}::text, updated_at = now() where id = (select reply_message_id from ended)
      ),
      closed as (
        insert into ${runEvents} (run_id, seq, type, payload, created_at)
        select id, last_seq, ${event.type}::text, ${payload}::jsonb, ${at}::timestamptz from ended
      )${bus.channel ? sql`,
      -- As the journal writer's flushes announce their rows (see journal-writer.ts): the range, and the row itself when
      -- it is small, so that another process hands it to its followers from the notification, not one read each.
      notice as (
        select pg_notify(${bus.channel}, json_build_object('t', ${journalTopic}::text, 'm', json_build_object('o', ${writer.origin}::text,
          'a', ${at}::text, 'r', json_build_array(case when octet_length(carried.rows::text) <= ${CARRIED_BYTES}::int
            then json_build_array(id, last_seq, last_seq, carried.rows) else json_build_array(id, last_seq, last_seq) end)))::text)
        from ended, (select json_build_array(json_build_array(${event.type}::text, ${payload}::jsonb)) as rows) as carried
      )
      select last_seq, (select count(*) from notice) as notices from ended` : sql`
      select last_seq from ended`}
    `),
  );
  const [row] = rowsOf<{ last_seq: number }>(result);
  if (!row) {
    // Ended by someone else, or by an attempt of ours whose answer was lost (its retry finds the run ended): either
    // way this process's followers may have been handed nothing. They read the journal, and find the end there.
    writer.wake(input.runId);
    return false;
  }
  const seq = Number(row.last_seq);
  // What a reader of the row gets: the stored JSON through the same parser.
  const terminal = parseRunEvent(event.type, seq, at, JSON.parse(JSON.stringify(event.payload)));
  if (terminal) writer.handOver(input.runId, [terminal]);
  input.committed?.();
  telemetryOf(db)?.runEnded(input.runId);
  if (!bus.channel) await notifyRun(bus, input.runId, seq, terminal ? writer.origin : undefined);
  return true;
}

/** Asks the driver of a running run to stop at its next step; `reason` is what its end will say ("Stopped by Omar."). */
export async function requestCancel(db: Db, runId: string, reason: string): Promise<boolean> {
  const [marked] = await withDbRetry(() =>
    db
      .update(agentRuns)
      // The first to ask is the one named: a later request (a second click, the mission's stop) keeps their words.
      .set({ cancelRequestedAt: new Date(), cancelReason: sql`coalesce(${agentRuns.cancelReason}, ${reason})` })
      .where(and(eq(agentRuns.id, runId), eq(agentRuns.state, "running")))
      .returning({ id: agentRuns.id }),
  );
  return !!marked;
}

/** What the end of a run stopped on request says: the request's reason, or a plain one when it has none. */
export async function cancelReasonOf(db: Db, runId: string): Promise<string> {
  const [row] = await withDbRetry(() => db.select({ reason: agentRuns.cancelReason }).from(agentRuns).where(eq(agentRuns.id, runId)));
  return row?.reason ?? STOPPED_BY_A_PERSON;
}

export const STOPPED_BY_A_PERSON = "Stopped by a person.";

/** The words a run's end says of the person who stopped it. */
export function stoppedBy(name: string | null | undefined): string {
  return name?.trim() ? `Stopped by ${name.trim()}.` : STOPPED_BY_A_PERSON;
}

/**
 * Marks a run failed (or cancelled) from outside its driver, once: the
 * conditional update picks the run only while it is still in one of `from`.
 * In the same transaction its pending approvals are withdrawn (a later
 * decision gets `409 conflict:approval`) and the terminal event closes the
 * journal.
 */
export async function endRunFromOutside(
  db: Db,
  bus: EventBus,
  runId: string,
  options: { from: readonly ("running" | "suspended")[]; to: "failed" | "cancelled"; code: string; message: string; staleOnly?: boolean },
): Promise<boolean> {
  const ended = await withDbRetry(() =>
    db.transaction(async (tx) => {
      const [run] = await tx
        .update(agentRuns)
        .set({
          state: options.to,
          error: options.to === "failed" ? options.message : null,
          errorCode: options.to === "failed" ? options.code : null,
          claimedBy: null,
          leaseExpiresAt: null,
          finishedAt: new Date(),
        })
        .where(
          and(
            eq(agentRuns.id, runId),
            inArray(agentRuns.state, [...options.from]),
            // A run whose journal is closed has ended: whatever its row says, it is not ended twice.
            isNull(agentRuns.journalClosedAt),
            options.staleOnly ? lt(agentRuns.leaseExpiresAt, sql`now()`) : undefined,
          ),
        )
        .returning();
      if (!run) return null;
      const withdrawn = await tx
        .update(approvals)
        .set({ status: "withdrawn", decidedAt: new Date(), reason: options.to === "cancelled" ? "The run was stopped before a decision." : `The run ended: ${options.message}` })
        .where(and(eq(approvals.runId, runId), eq(approvals.status, "pending")))
        .returning({ id: approvals.id, tool: approvals.tool });
      // Keep the partial reply the journal holds, so the person sees what was said before it stopped.
      if (run.replyMessageId) await tx.update(messages).set({ content: await journalText(tx, runId) }).where(eq(messages.id, run.replyMessageId));
      const seq = await insertRunEvents(tx, runId, null, [
        options.to === "failed"
          ? { type: "run_failed", payload: { code: options.code, message: options.message } }
          : { type: "run_cancelled", payload: { reason: options.message } },
      ]);
      return { run, seq, withdrawn };
    }),
  );
  if (!ended) return false;
  telemetryOf(db)?.runEnded(runId);
  await notifyRun(bus, runId, ended.seq);
  for (const w of ended.withdrawn) await bus.publish(approvalsTopic(ended.run.workspaceId), { approvalId: w.id, status: "withdrawn" });
  if (ended.withdrawn.length > 0) {
    await recordFeed(
      db,
      bus,
      ended.withdrawn.map((w) => ({
        workspaceId: ended.run.workspaceId,
        kind: "approval_decided" as const,
        agentId: ended.run.agentId,
        runId,
        approvalId: w.id,
        payload: { status: "withdrawn", tool: w.tool, reason: "The run was stopped." },
      })),
    );
  }
  const [agent] = await db.select({ handle: agents.handle }).from(agents).where(eq(agents.id, ended.run.agentId));
  await recordRunFinished({ db, bus }, ended.run, agent?.handle, options.to, options.to === "failed" ? { code: options.code, message: options.message } : undefined);
  return true;
}
