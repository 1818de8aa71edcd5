import { and, asc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { missionEvents, missionRuns } from "../db/schema";
import type { EventBus } from "../db/bus";

/** The mission journal: numbered events, written in the transaction that changes the state they report. */

export const missionTopic = (missionRunId: string) => `mission:${missionRunId}`;

export type MissionEventType =
  | "mission_started"
  | "node_started"
  | "node_held"
  | "node_awaiting_approval"
  | "node_finished"
  | "handoff"
  | "mission_finished";

export interface MissionEventInput {
  type: MissionEventType;
  payload: Record<string, unknown>;
}

export interface MissionEventView {
  seq: number;
  type: string;
  payload: Record<string, unknown>;
  at: string;
}

export const isMissionTerminal = (type: string) => type === "mission_finished";

/** Appends events inside the caller's transaction; returns the last sequence number written. */
export async function insertMissionEvents(tx: Db, missionRunId: string, events: MissionEventInput[]): Promise<number> {
  if (events.length === 0) return 0;
  const [row] = await tx
    .update(missionRuns)
    .set({ lastSeq: sql`${missionRuns.lastSeq} + ${events.length}` })
    .where(eq(missionRuns.id, missionRunId))
    .returning({ lastSeq: missionRuns.lastSeq });
  const first = row!.lastSeq - events.length + 1;
  await tx.insert(missionEvents).values(events.map((e, i) => ({ missionRunId, seq: first + i, type: e.type, payload: e.payload })));
  return row!.lastSeq;
}

export async function notifyMission(bus: EventBus, missionRunId: string, seq: number): Promise<void> {
  if (seq > 0) await bus.publish(missionTopic(missionRunId), { seq });
}

export async function readMissionEvents(db: Db, missionRunId: string, afterSeq: number, limit = 500): Promise<MissionEventView[]> {
  const rows = await db
    .select()
    .from(missionEvents)
    .where(and(eq(missionEvents.missionRunId, missionRunId), gt(missionEvents.seq, afterSeq)))
    .orderBy(asc(missionEvents.seq))
    .limit(limit);
  return rows.map((r) => ({ seq: r.seq, type: r.type, payload: r.payload, at: r.createdAt.toISOString() }));
}
