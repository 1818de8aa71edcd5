import crypto from "node:crypto";
import { and, eq, gt, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, doorSessions } from "../db/schema";
import { recordRunFinished } from "../feed/feed";
import { startDoorRun, type DoorCaller } from "./door-calls";
import { claimParkedRun, endRunFromOutside, finishRun, parkRun } from "../runs";
import { getRunWithAgent } from "../runs/run-reads";
import type { RuntimeDeps } from "../runtime/types";

/**
 * Door sessions: an MCP client that keeps the `Mcp-Session-Id` issued at
 * `initialize` makes every call of that session a step of one run. The
 * session lives in the database, so any instance answers its requests, and
 * a restart loses nothing. A session idle for `DOOR_SESSION_IDLE_SECONDS`
 * ends, and so does its run.
 */

export const DOOR_SESSION_IDLE_SECONDS = 30 * 60;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Opens a session for the caller: its run starts, parked until the first call. Returns the session id. */
export async function openDoorSession(deps: RuntimeDeps, caller: DoorCaller): Promise<string> {
  const id = crypto.randomUUID();
  const run = await startDoorRun(deps, caller, null, id);
  await parkRun(deps.db, run.id, deps.instanceId);
  return id;
}

/** The caller's open session with this id (and marks it seen), or null: unknown, another token's, ended or idle too long. */
export async function touchDoorSession(db: Db, tokenId: string, sessionId: string): Promise<{ id: string; runId: string } | null> {
  if (!UUID.test(sessionId)) return null;
  const [row] = await db
    .update(doorSessions)
    .set({ lastSeenAt: new Date() })
    .where(
      and(
        eq(doorSessions.id, sessionId),
        eq(doorSessions.tokenId, tokenId),
        isNull(doorSessions.endedAt),
        gt(doorSessions.lastSeenAt, sql`now() - make_interval(secs => ${DOOR_SESSION_IDLE_SECONDS})`),
        sql`exists (select 1 from ${agentRuns} where ${agentRuns.id} = ${doorSessions.runId} and ${agentRuns.state} in ('running', 'suspended'))`,
      ),
    )
    .returning({ id: doorSessions.id, runId: doorSessions.runId });
  return row?.runId ? { id: row.id, runId: row.runId } : null;
}

/**
 * Ends a session once and closes its run cleanly: a parked run succeeds; a
 * run still waiting on an approval is cancelled (a pending approval is
 * withdrawn, an unused grant is never used); a run busy with a call ends when
 * that call does.
 */
export async function endDoorSession(deps: RuntimeDeps, sessionId: string, why: string): Promise<boolean> {
  const [ended] = await deps.db
    .update(doorSessions)
    .set({ endedAt: new Date() })
    .where(and(eq(doorSessions.id, sessionId), isNull(doorSessions.endedAt)))
    .returning({ runId: doorSessions.runId });
  if (!ended?.runId) return false;
  const runId = ended.runId;
  if (await claimParkedRun(deps.db, runId, deps.instanceId)) {
    const done = await finishRun(deps.db, deps.bus, {
      runId,
      owner: deps.instanceId,
      state: "succeeded",
      replyText: "",
      event: { type: "run_completed", payload: { replyMessageId: "" } },
    });
    const { run, agent } = await getRunWithAgent(deps.db, runId);
    if (done && run) await recordRunFinished(deps, run, agent?.handle, "succeeded");
    return true;
  }
  await endRunFromOutside(deps.db, deps.bus, runId, { from: ["suspended"], to: "cancelled", code: "door:session_ended", message: why });
  return true;
}

/** Ends the sessions idle longer than `DOOR_SESSION_IDLE_SECONDS` (the sweeper calls this). */
export async function expireIdleDoorSessions(deps: RuntimeDeps): Promise<number> {
  const idle = await deps.db
    .select({ id: doorSessions.id })
    .from(doorSessions)
    .innerJoin(agentRuns, eq(agentRuns.id, doorSessions.runId))
    .where(
      and(
        isNull(doorSessions.endedAt),
        lt(doorSessions.lastSeenAt, sql`now() - make_interval(secs => ${DOOR_SESSION_IDLE_SECONDS})`),
        inArray(agentRuns.state, ["suspended", "running"]),
      ),
    )
    .limit(100);
  let ended = 0;
  for (const s of idle) if (await endDoorSession(deps, s.id, "The door session was idle too long; it ended before the call was repeated.")) ended += 1;
  return ended;
}
