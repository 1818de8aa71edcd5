import crypto from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Viewer } from "../access/access";
import { agentRuns, approvals, missionEvents, missionNodes, missionRuns, missions, type MissionNode, type MissionRun } from "../db/schema";
import { AppError } from "../errors";
import { insertFeedItems, notifyFeed } from "../feed/feed";
import { logError } from "../log";
import { endRunFromOutside, insertTurnRuns, lockTurnAgents, stoppedBy } from "../runs";
import type { Runtime } from "../runtime/runtime";
import { can } from "../access/capabilities";
import { getCrewRow, resolveCrew } from "./crews";
import { insertMissionEvents, notifyMission } from "./journal";
import { MissionPlan } from "./plan";
import { DEFAULT_CONCURRENCY, mostRunsOf, reviewLoopOf } from "./topology";
import { feedBase, handleCache, loadTurns, preview, settleTurns, type Ended, type Pass } from "./turns";
import { MissionWatch } from "./watch";

/**
 * The mission scheduler. All of its state is in the database: a mission run,
 * one row per node turn, and the mission journal. `advance` reads that state
 * and does what is due (settle turns whose run ended, start turns whose
 * inputs are there, finish the mission); it is idempotent, so any process may
 * call it at any time, and the sweeper does for every running mission. Each
 * turn is started at most once: the waiting → running update that claims it
 * is in the transaction that creates its run.
 */
export interface MissionScheduler {
  /**
   * Starts a mission of the crew. `limit` is told how many runs it may start (`mostRunsOf`) once the crew is read and
   * before anything is written; it throws to refuse (the person's run-start limit).
   */
  /** `capCredits`: what the mission may spend before a manager is asked whether it goes on (null: no cap). */
  start(input: { workspaceId: string; crewId: string; goal: string; capCredits?: number | null; userId: string; limit?: (runs: number) => Promise<void> }): Promise<{ missionId: string }>;
  advance(missionRunId: string): Promise<void>;
  /** `by.name`: who the mission's end says stopped it. */
  cancel(workspaceId: string, missionRunId: string, by: Viewer & { name?: string }): Promise<void>;
  /** Called (in this process) after a mission ends, once per mission. */
  onFinish(listener: (missionRunId: string) => Promise<void>): void;
  /** Advances every running mission (the sweeper); returns how many. */
  sweep(): Promise<number>;
  /** Waits until no mission is being advanced by this process (tests, benchmarks, shutdown). */
  drain(): Promise<void>;
}

/** How long the end of a turn that can start nothing may wait to be settled (see `MissionWatch`). */
const SETTLE_LATER_MS = 150;

type MissionEnd = { state: "succeeded" | "failed" | "cancelled"; result?: string; error?: string; failedNodeId?: string };

export function createMissionScheduler(runtime: Runtime): MissionScheduler {
  const { db, bus } = runtime.deps;
  const inFlight = new Map<string, { done: Promise<void>; again: boolean }>();
  /** Notifications on their way out (see `write`). */
  const announcing = new Set<Promise<void>>();
  /** Per running mission: what its last step saw (see `MissionWatch`), and the later step due for ends that start nothing. */
  const watches = new Map<string, MissionWatch>();
  const later = new Map<string, ReturnType<typeof setTimeout>>();
  const finishListeners: ((missionRunId: string) => Promise<void>)[] = [];
  const handlesOf = handleCache(db);

  /**
   * One transaction of the scheduler. `work` changes the state and pushes the
   * journal events and feed items that say so, written in the same
   * transaction (so the journal and the feed say exactly what happened), and
   * the work due once it is committed (runs to drive, turns to stop).
   * Returns whether anything was journaled.
   */
  async function write(missionRunId: string, work: (pass: Pass) => Promise<void>): Promise<boolean> {
    const after: Pass["after"] = [];
    const done = await db.transaction(async (tx) => {
      const pass: Pass = { tx, events: [], feed: [], after: [] };
      await work(pass);
      after.push(...pass.after);
      if (pass.events.length === 0) return null;
      // Independent writes, sent together (PostgreSQL pipelines them on the transaction's connection).
      const [seq, written] = await Promise.all([insertMissionEvents(tx, missionRunId, pass.events), insertFeedItems(tx, pass.feed)]);
      return { seq, written };
    });
    // Followers are told without holding up the mission: its next step (and the runs it starts) need not wait for the
    // notifications, which carry only sequence numbers that followers read past.
    if (done !== null) {
      const notified = Promise.all([notifyMission(bus, missionRunId, done.seq), notifyFeed(bus, done.written)])
        .then(() => undefined)
        .catch((error: unknown) => logError(`Could not announce mission ${missionRunId}'s events`, error));
      announcing.add(notified);
      void notified.finally(() => announcing.delete(notified));
    }
    for (const task of after) await task();
    return done !== null;
  }

  /** Says once, in the journal and the feed, that a turn waits for an approval. */
  async function noteApproval(mr: MissionRun, row: MissionNode, handles: Map<string, string>) {
    const [pending] = await db
      .select({ id: approvals.id, tool: approvals.tool })
      .from(approvals)
      .where(and(eq(approvals.runId, row.runId!), eq(approvals.status, "pending")))
      .limit(1);
    if (!pending) return;
    const node = mr.topology!.nodes.find((n) => n.id === row.nodeId)!;
    const payload = { missionId: mr.id, nodeId: row.nodeId, role: node.role, agent: handles.get(node.agentId) ?? "unknown", runId: row.runId, approvalId: pending.id, tool: pending.tool };
    await write(mr.id, async ({ tx, events, feed }) => {
      await tx.select({ id: missionRuns.id }).from(missionRuns).where(eq(missionRuns.id, mr.id)).for("update");
      const [seen] = await tx
        .select({ id: missionEvents.id })
        .from(missionEvents)
        .where(and(eq(missionEvents.missionRunId, mr.id), eq(missionEvents.type, "node_awaiting_approval"), sql`${missionEvents.payload}->>'approvalId' = ${pending.id}`));
      if (seen) return;
      feed.push({ ...feedBase(mr), kind: "mission_node_waiting", agentId: node.agentId, runId: row.runId, approvalId: pending.id, payload });
      events.push({ type: "node_awaiting_approval", payload });
    });
  }

  /**
   * Claims the ready turns (as many as the mission may still run at once) and
   * creates their runs, in one transaction that holds the mission's row: a
   * cancel waits for it, and no other process claims the same turns. A turn
   * whose agent is paused is not claimed; it is marked held and waits, and the
   * next ready turn takes its place.
   */
  async function startTurns({ tx, events, after }: Pass, mr: MissionRun, plan: MissionPlan, ready: MissionNode[], handles: Map<string, string>): Promise<void> {
    const topology = mr.topology!;
    const started: string[] = [];
    // Sent together, in this order on the transaction's connection: the count is a statement of its own, run once the
    // mission's row is locked, so it sees every turn started by whoever held the lock before.
    const [[mission], [busy]] = await Promise.all([
      tx.select({ state: missionRuns.state }).from(missionRuns).where(eq(missionRuns.id, mr.id)).for("update"),
      tx
        .select({ n: sql<number>`count(*)::int` })
        .from(missionNodes)
        .innerJoin(agentRuns, eq(agentRuns.id, missionNodes.runId))
        .where(and(eq(missionNodes.missionRunId, mr.id), eq(missionNodes.state, "running"), eq(agentRuns.state, "running"))),
    ]);
    if (mission?.state !== "running") return;
    let room = (topology.concurrency ?? DEFAULT_CONCURRENCY) - Number(busy?.n ?? 0);
    const waiting = [...ready];
    while (room > 0 && waiting.length > 0) {
      const chosen = waiting.splice(0, room);
      // Independent, so sent together: the claim, and the agents' read that a pause waits for (see `lockTurnAgents`;
      // the agents of every chosen turn stay share-locked until commit, and a step that fails on a lock is done again
      // by the next advance or sweep).
      const [claimed, found] = await Promise.all([
        tx
          .update(missionNodes)
          .set({ state: "running", held: false, startedAt: new Date() })
          .where(and(inArray(missionNodes.id, chosen.map((r) => r.id)), eq(missionNodes.state, "waiting")))
          .returning({ id: missionNodes.id }),
        lockTurnAgents(tx, mr.workspaceId, chosen.map((r) => topology.nodes.find((n) => n.id === r.nodeId)!.agentId)),
      ]);
      const ids = new Set(claimed.map((c) => c.id));
      const turns = chosen.filter((r) => ids.has(r.id)).map((row) => ({ row, node: topology.nodes.find((n) => n.id === row.nodeId)!, input: plan.inputFor(mr.goal, row, handles) }));
      if (turns.length === 0) continue;
      // In this transaction, which holds the mission's row and the claim.
      const { runIds } = await insertTurnRuns(
        tx,
        {
          workspaceId: mr.workspaceId,
          trigger: "mission",
          threadId: null,
          roomId: null,
          sourceMessageId: null,
          hop: 0,
          chain: { onBehalfOfUserId: mr.startedByUserId, via: [], originSessionId: null, originRoomId: null },
          owner: runtime.deps.instanceId,
        },
        turns.map(({ row, node, input }) => ({ agentId: node.agentId, inputText: input.text, taint: input.taint, via: input.via, mission: { runId: mr.id, nodeId: row.nodeId } })),
        found,
      );
      const held: string[] = [];
      const assigned: { id: string; runId: string }[] = [];
      turns.forEach(({ row, node }, i) => {
        const runId = runIds[i];
        const agent = handles.get(node.agentId) ?? "unknown";
        if (!runId) {
          // Its agent is paused: the turn goes back to waiting, held, and is started once the agent is resumed.
          held.push(row.id);
          if (!row.held) events.push({ type: "node_held", payload: { nodeId: row.nodeId, agent, reason: "Its agent is paused." } });
          return;
        }
        assigned.push({ id: row.id, runId });
        events.push({ type: "node_started", payload: { nodeId: row.nodeId, round: row.round, runId, agent, role: node.role } });
        started.push(runId);
      });
      if (held.length > 0) await tx.update(missionNodes).set({ state: "waiting", held: true, startedAt: null }).where(inArray(missionNodes.id, held));
      if (assigned.length > 0) {
        const values = sql.join(assigned.map((a) => sql`(${a.id}::uuid, ${a.runId}::uuid)`), sql`, `);
        await tx.execute(sql`update mission_nodes set run_id = v.run_id from (values ${values}) as v(id, run_id) where mission_nodes.id = v.id`);
      }
      room -= assigned.length;
      for (const a of assigned) watches.get(mr.id)?.addRun(a.runId, chosen.find((r) => r.id === a.id)!.nodeId);
    }
    const watch = watches.get(mr.id);
    if (watch) watch.capacityBound = waiting.length > 0;
    if (started.length > 0) after.push(() => runtime.startRuns(started));
  }

  /** Ends every turn still waiting or running: waiting ones are cancelled, runs stopped, their approvals withdrawn. */
  async function stopTurns(mr: MissionRun) {
    await db
      .update(missionNodes)
      .set({ state: "cancelled", finishedAt: new Date() })
      .where(and(eq(missionNodes.missionRunId, mr.id), eq(missionNodes.state, "waiting")));
    const running = await db
      .select({ id: missionNodes.id, runId: missionNodes.runId, runState: agentRuns.state })
      .from(missionNodes)
      .leftJoin(agentRuns, eq(agentRuns.id, missionNodes.runId))
      .where(and(eq(missionNodes.missionRunId, mr.id), eq(missionNodes.state, "running")));
    for (const r of running) {
      if (r.runId && r.runState === "suspended") {
        await endRunFromOutside(db, bus, r.runId, { from: [r.runState], to: "cancelled", code: "cancelled", message: "The mission was stopped." });
      } else if (r.runId && r.runState === "running") {
        await runtime.stopRun(r.runId, "The mission was stopped.");
      }
      await db
        .update(missionNodes)
        .set({ state: "cancelled", finishedAt: new Date() })
        .where(and(eq(missionNodes.id, r.id), eq(missionNodes.state, "running")));
    }
  }

  /** Ends the mission once, with its terminal event and feed item; false when it had already ended. */
  async function finish({ tx, events, feed, after }: Pass, mr: MissionRun, end: MissionEnd): Promise<boolean> {
    const [row] = await tx
      .update(missionRuns)
      .set({
        state: end.state,
        result: end.result === undefined ? null : { text: end.result },
        error: end.error ?? null,
        failedNodeId: end.failedNodeId ?? null,
        credits: sql`(select coalesce(sum(${agentRuns.credits}), 0) from ${agentRuns} where ${agentRuns.missionRunId} = ${mr.id})`,
        finishedAt: new Date(),
      })
      .where(and(eq(missionRuns.id, mr.id), inArray(missionRuns.state, ["queued", "running"])))
      .returning({ id: missionRuns.id });
    if (!row) return false;
    const [crew] = await tx.select({ name: missions.name }).from(missions).where(eq(missions.id, mr.missionId));
    feed.push({
      ...feedBase(mr),
      kind: "mission_finished",
      payload: { missionId: mr.id, crew: crew?.name ?? null, goal: preview(mr.goal), state: end.state, error: end.error ?? null, failedNodeId: end.failedNodeId ?? null, result: end.result ? preview(end.result) : null },
    });
    events.push({ type: "mission_finished", payload: { state: end.state, error: end.error ?? null, failedNodeId: end.failedNodeId ?? null, result: end.result ?? null } });
    after.push(async () => {
      watches.delete(mr.id);
      if (end.state !== "succeeded") await stopTurns(mr);
      for (const listener of finishListeners) {
        listener(mr.id).catch((error) => logError(`After mission ${mr.id} finished`, error));
      }
    });
    return true;
  }

  /**
   * Does what is due for a mission, in one transaction: settles the turns
   * whose run ended, then fails the mission, starts the ready turns, or
   * finishes it.
   */
  async function step(missionRunId: string): Promise<void> {
    // Read together (the turns are wasted only when the mission has ended).
    const [[mr], turns] = await Promise.all([db.select().from(missionRuns).where(eq(missionRuns.id, missionRunId)), loadTurns(db, missionRunId)]);
    if (!mr || mr.state !== "running" || !mr.topology) {
      watches.delete(missionRunId);
      return;
    }
    const topology = mr.topology;
    const handles = await handlesOf(mr.workspaceId, topology.nodes.map((n) => n.agentId));
    const watch = new MissionWatch(topology, !!reviewLoopOf(topology));
    for (const nodeId of watches.get(mr.id)?.doneNodes() ?? []) watch.addDone(nodeId);
    for (const { row, runState } of turns) {
      if (row.runId) watch.addRun(row.runId, row.nodeId, row.state === "succeeded" || runState === "succeeded");
      else if (row.state === "succeeded" || row.state === "skipped") watch.addDone(row.nodeId);
    }
    watches.set(mr.id, watch);
    const ended: Ended[] = [];
    for (const { row, runState, runError } of turns) {
      if (row.state !== "running" || !runState) continue;
      if (runState === "succeeded" || runState === "failed" || runState === "cancelled") ended.push({ row, run: { state: runState, error: runError } });
      else if (runState === "suspended") await noteApproval(mr, row, handles);
    }
    // In one order everywhere, so two processes settling the same turns wait for each other instead of deadlocking.
    ended.sort((a, b) => (a.row.id < b.row.id ? -1 : 1));
    const outputs = new Map(turns.flatMap(({ row, runOutput }) => (row.runId && runOutput !== null ? [[row.runId, runOutput] as const] : [])));
    await write(mr.id, async (pass) => {
      let read = turns;
      if (ended.length > 0 && (await settleTurns(pass, mr, new MissionPlan(topology, read.map((t) => t.row)), ended, outputs, handles))) {
        // Only states are needed now: the outputs were settled above.
        read = await loadTurns(pass.tx, mr.id, { outputs: false });
      }
      const rows = read.map((t) => t.row);
      // Read with the turns: an ended turn's run is tainted for good, so what it hands on carries its taint.
      const taintOf = new Map(read.flatMap((t) => (t.row.runId && t.runTaint ? [[t.row.runId, t.runTaint] as const] : [])));
      const plan = new MissionPlan(topology, rows, taintOf);
      const failed = rows.find((r) => r.state === "failed");
      if (failed && !topology.continueOnFailure) {
        const node = topology.nodes.find((n) => n.id === failed.nodeId)!;
        const error = `Node "${node.id}" (${node.role}, @${handles.get(node.agentId) ?? "unknown"}) failed: ${failed.error ?? "its run failed."}`;
        await finish(pass, mr, { state: "failed", failedNodeId: failed.nodeId, error });
        return;
      }
      const ready = plan.ready();
      if (ready.length > 0) await startTurns(pass, mr, plan, ready, handles);
      if (plan.allFinal()) await finish(pass, mr, { state: "succeeded", result: plan.result() });
    });
  }

  function advance(missionRunId: string): Promise<void> {
    // This step settles every turn that has ended: a later one is no longer due.
    clearTimeout(later.get(missionRunId));
    later.delete(missionRunId);
    const current = inFlight.get(missionRunId);
    if (current) {
      current.again = true;
      return current.done;
    }
    const entry = { again: true, done: Promise.resolve() };
    entry.done = (async () => {
      while (entry.again) {
        entry.again = false;
        await step(missionRunId).catch((error: unknown) => logError(`Mission ${missionRunId} could not advance`, error));
      }
      inFlight.delete(missionRunId);
    })();
    inFlight.set(missionRunId, entry);
    return entry.done;
  }

  /** Steps a little later, for an end that cannot start anything (unless a step comes first). */
  function advanceLater(missionRunId: string) {
    if (later.has(missionRunId)) return;
    const timer = setTimeout(() => void advance(missionRunId), SETTLE_LATER_MS);
    timer.unref?.();
    later.set(missionRunId, timer);
  }

  runtime.onRunSettled((runId, known) => {
    if (known !== undefined) {
      // Told by the driver of a run that ended well (see Runtime.onRunSettled).
      if (!known) return;
      const watch = watches.get(known);
      if (watch && !watch.endNeedsStep(runId)) advanceLater(known);
      else void advance(known);
      return;
    }
    void db
      .select({ missionRunId: agentRuns.missionRunId })
      .from(agentRuns)
      .where(eq(agentRuns.id, runId))
      .then(([row]) => (row?.missionRunId ? advance(row.missionRunId) : undefined))
      .catch((error: unknown) => logError(`Could not advance the mission of run ${runId}`, error));
  });

  const scheduler: MissionScheduler = {
    async start(input) {
      const crew = await getCrewRow(db, input.workspaceId, input.crewId);
      // The crew is checked again: an agent may have been removed since it was saved.
      const topology = await resolveCrew(db, input.workspaceId, { ...crew.topology, nodes: crew.topology.nodes.map((n) => ({ ...n })) });
      await input.limit?.(mostRunsOf(topology));
      const handles = await handlesOf(input.workspaceId, topology.nodes.map((n) => n.agentId));
      const missionId = crypto.randomUUID();
      // The mission, its turns and the first turns' runs are created together.
      await write(missionId, async (pass) => {
        const [mr] = await pass.tx
          .insert(missionRuns)
          .values({ id: missionId, workspaceId: input.workspaceId, missionId: crew.id, goal: input.goal, capCredits: input.capCredits ?? null, topology, state: "running", startedByUserId: input.userId, startedAt: new Date() })
          .returning();
        const rows = await pass.tx
          .insert(missionNodes)
          .values(topology.nodes.map((n) => ({ workspaceId: input.workspaceId, missionRunId: missionId, nodeId: n.id, round: 0, agentId: n.agentId })))
          .returning();
        pass.events.push({ type: "mission_started", payload: { goal: input.goal, crewId: crew.id, crew: crew.name } });
        pass.feed.push({ workspaceId: input.workspaceId, kind: "mission_started", payload: { missionId, crew: crew.name, goal: preview(input.goal) } });
        const plan = new MissionPlan(topology, rows);
        await startTurns(pass, mr!, plan, plan.ready(), handles);
      });
      return { missionId };
    },

    advance,

    onFinish(listener) {
      finishListeners.push(listener);
    },

    async cancel(workspaceId, missionRunId, by) {
      const [mr] = await db
        .select()
        .from(missionRuns)
        .where(and(eq(missionRuns.id, missionRunId), eq(missionRuns.workspaceId, workspaceId)));
      if (!mr) throw new AppError("not_found:mission");
      if (mr.startedByUserId !== by.userId && !can(by.role, "missions.stopAny")) {
        throw new AppError("forbidden:mission", "Only the person who started this mission, or a manager, can stop it.");
      }
      let ended = false;
      await write(mr.id, async (pass) => {
        ended = await finish(pass, mr, { state: "cancelled", error: stoppedBy(by.name) });
      });
      if (!ended) {
        throw new AppError("conflict:mission", `This mission has already ${mr.state === "succeeded" ? "finished" : mr.state}.`);
      }
    },

    async drain() {
      for (;;) {
        // Steps that were due later are due now.
        for (const id of [...later.keys()]) void advance(id);
        if (inFlight.size === 0 && announcing.size === 0) return;
        await Promise.all([...[...inFlight.values()].map((e) => e.done), ...announcing]);
      }
    },

    async sweep() {
      const running = await db.select({ id: missionRuns.id }).from(missionRuns).where(eq(missionRuns.state, "running"));
      for (const m of running) await advance(m.id);
      return running.length;
    },
  };
  runtime.onSweep(async () => {
    await scheduler.sweep();
  });
  return scheduler;
}
