import type { Db } from "../db/client";
import type { SseItem } from "../http/sse";
import type { EventBus } from "../db/bus";
import { tailJournal } from "../db/journal-tail";
import { isMissionTerminal, missionTopic, readMissionEvents, type MissionEventView } from "./journal";

/**
 * A mission's journal after `afterSeq`, then its live tail until the
 * terminal event, as SSE items (`id` is the sequence, for Last-Event-ID).
 * Mission events carry no credits: they are the same for every member.
 */
export async function* streamMissionEvents(options: { db: Db; bus: EventBus; missionRunId: string; afterSeq: number; signal?: AbortSignal; heartbeatMs?: number }): AsyncGenerator<SseItem> {
  for await (const next of tailJournal<MissionEventView>({
    subscribe: (wake) => options.bus.subscribe(missionTopic(options.missionRunId), wake),
    read: (after) => readMissionEvents(options.db, options.missionRunId, after, 500),
    batchSize: 500,
    afterSeq: options.afterSeq,
    isLast: (event) => isMissionTerminal(event.type),
    signal: options.signal,
    heartbeatMs: options.heartbeatMs,
  })) {
    if (next.kind === "heartbeat") yield next;
    else yield { kind: "event", id: next.item.seq, event: next.item.type, data: { ...next.item.payload, seq: next.item.seq, at: next.item.at } };
  }
}
