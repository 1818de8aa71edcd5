import { and, eq, inArray, sql } from "drizzle-orm";
import type { Viewer } from "../access/access";
import type { Db } from "../db/client";
import { agentRuns, agents, approvals, missionEvents, missionNodes, missionRuns, missions, type MissionNode, type MissionRun } from "../db/schema";
import { AppError } from "../errors";
import { insertFeedItems, notifyFeed, type FeedItemInput } from "../feed/feed";
import { logError } from "../log";
import { createWakeRuns, endRunFromOutside } from "../runtime/run-state";
import { journalText } from "../runtime/runs";
import type { Runtime } from "../runtime/runtime";
import { truncate } from "../text";
import { hasRole } from "../workspaces/roles";
import { getCrewRow, resolveCrew } from "./crews";
import { insertMissionEvents, notifyMission, type MissionEventInput } from "./journal";
import { MissionPlan } from "./plan";
import { DEFAULT_CONCURRENCY } from "./topology";

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
  start(input: { workspaceId: string; crewId: string; goal: string; userId: string }): Promise<{ missionId: string }>;
  advance(missionRunId: string): Promise<void>;
  cancel(workspaceId: string, missionRunId: string, by: Viewer): Promise<void>;
  /** Called (in this process) after a mission ends, once per mission. */
  onFinish(listener: (missionRunId: string) => Promise<void>): void;
  /** Advances every running mission (the sweeper); returns how many. */
  sweep(): Promise<number>;
  /** Waits until no mission is being advanced by this process (tests, benchmarks, shutdown). */
  drain(): Promise<void>;
}

const preview = (text: string) => truncate(text.replace(/\s+/g, " ").trim(), 200, "…");

export function createMissionScheduler(runtime: Runtime): MissionScheduler {
  const { db, bus } = runtime.deps;
  const inFlight = new Map<string, { done: Promise<void>; again: boolean }>();
  const finishListeners: ((missionRunId: string) => Promise<void>)[] = [];

  async function handlesOf(workspaceId: string): Promise<Map<string, string>> {
    const rows = await db.select({ id: agents.id, handle: agents.handle }).from(agents).where(eq(agents.workspaceId, workspaceId));
    return new Map(rows.map((a) => [a.id, a.handle]));
  }

  /**
   * One transaction of the scheduler: `work` changes the state and returns the
   * journal events (null: nothing changed); the feed items it pushes are
   * written in the same transaction, so the feed says exactly what happened.
   */
  async function write(missionRunId: string, work: (tx: Db, feed: FeedItemInput[]) => Promise<MissionEventInput[] | null>): Promise<boolean> {
    const done = await db.transaction(async (tx) => {
      const feed: FeedItemInput[] = [];
      const events = await work(tx, feed);
      if (events === null) return null;
      return { seq: await insertMissionEvents(tx, missionRunId, events), written: await insertFeedItems(tx, feed) };
    });
    if (done === null) return false;
    await notifyMission(bus, missionRunId, done.seq);
    await notifyFeed(bus, done.written);
    return true;
  }

  const feedBase = (mr: MissionRun) => ({ workspaceId: mr.workspaceId });

  /** Records how a running turn's run ended, once; hands its output on. */
  async function settle(
    mr: MissionRun,
    plan: MissionPlan,
    row: MissionNode,
    handles: Map<string, string>,
    run: { state: string; error: string | null },
  ): Promise<Pick<MissionNode, "state" | "output" | "error">> {
    const topology = mr.topology!;
    const node = topology.nodes.find((n) => n.id === row.nodeId)!;
    const handle = handles.get(node.agentId) ?? "unknown";
    const ok = run.state === "succeeded";
    const output = ok ? await journalText(db, row.runId!) : null;
    const error = ok ? null : run.state === "cancelled" ? "Its run was stopped." : (run.error ?? "Its run failed.");
    await write(mr.id, async (tx, feed) => {
      const [won] = await tx
        .update(missionNodes)
        .set({ state: ok ? "succeeded" : "failed", output, error, finishedAt: new Date() })
        .where(and(eq(missionNodes.id, row.id), eq(missionNodes.state, "running")))
        .returning({ id: missionNodes.id });
      if (!won) return null;
      const events: MissionEventInput[] = [
        { type: "node_finished", payload: { nodeId: row.nodeId, round: row.round, runId: row.runId, state: ok ? "succeeded" : "failed", error, preview: output ? preview(output) : null } },
      ];
      if (!ok) return events;
      const loop = plan.loop;
      let targets = topology.edges.filter((e) => e.from === row.nodeId).map((e) => e.to);
      let handedText = output!;
      if (loop && row.nodeId === loop.checker) {
        if (plan.loopEndsWith(row, output!)) {
          targets = targets.filter((t) => t !== loop.maker);
          handedText = plan.latestOf(loop.maker)?.output ?? "";
        } else {
          targets = [loop.maker];
          const next = row.round + 1;
          await tx
            .insert(missionNodes)
            .values([loop.maker, loop.checker].map((nodeId) => ({
              workspaceId: mr.workspaceId,
              missionRunId: mr.id,
              nodeId,
              round: next,
              agentId: topology.nodes.find((n) => n.id === nodeId)!.agentId,
            })))
            .onConflictDoNothing();
        }
      }
      for (const to of targets) {
        const target = topology.nodes.find((n) => n.id === to)!;
        const toHandle = handles.get(target.agentId) ?? "unknown";
        const payload = { missionId: mr.id, from: { nodeId: node.id, role: node.role, agent: handle }, to: { nodeId: to, role: target.role, agent: toHandle }, preview: preview(handedText) };
        events.push({ type: "handoff", payload });
        feed.push({ ...feedBase(mr), kind: "mission_handoff", agentId: node.agentId, targetAgentId: target.agentId, runId: row.runId, payload });
      }
      return events;
    });
    return { state: ok ? "succeeded" : "failed", output, error };
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
    await write(mr.id, async (tx, feed) => {
      await tx.select({ id: missionRuns.id }).from(missionRuns).where(eq(missionRuns.id, mr.id)).for("update");
      const [seen] = await tx
        .select({ id: missionEvents.id })
        .from(missionEvents)
        .where(and(eq(missionEvents.missionRunId, mr.id), eq(missionEvents.type, "node_awaiting_approval"), sql`${missionEvents.payload}->>'approvalId' = ${pending.id}`));
      if (seen) return null;
      feed.push({ ...feedBase(mr), kind: "mission_node_waiting", agentId: node.agentId, runId: row.runId, approvalId: pending.id, payload });
      return [{ type: "node_awaiting_approval", payload }];
    });
  }

  /**
   * Claims the ready turns (as many as the mission may still run at once) and
   * creates their runs, in one transaction that holds the mission's row: a
   * cancel waits for it, and no other process claims the same turns. A turn
   * whose agent is paused is not claimed; it is marked held and waits.
   */
  async function startTurns(mr: MissionRun, plan: MissionPlan, ready: MissionNode[], handles: Map<string, string>): Promise<void> {
    const started: string[] = [];
    await write(mr.id, async (tx) => {
      const [mission] = await tx.select({ state: missionRuns.state }).from(missionRuns).where(eq(missionRuns.id, mr.id)).for("update");
      if (mission?.state !== "running") return null;
      const [busy] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(missionNodes)
        .innerJoin(agentRuns, eq(agentRuns.id, missionNodes.runId))
        .where(and(eq(missionNodes.missionRunId, mr.id), eq(missionNodes.state, "running"), inArray(agentRuns.state, ["queued", "running"])));
      let room = (mr.topology!.concurrency ?? DEFAULT_CONCURRENCY) - Number(busy?.n ?? 0);
      const events: MissionEventInput[] = [];
      for (const row of ready) {
        if (room <= 0) break;
        const node = mr.topology!.nodes.find((n) => n.id === row.nodeId)!;
        const agent = handles.get(node.agentId) ?? "unknown";
        const [claimed] = await tx
          .update(missionNodes)
          .set({ state: "running", held: false, startedAt: new Date() })
          .where(and(eq(missionNodes.id, row.id), eq(missionNodes.state, "waiting")))
          .returning({ id: missionNodes.id });
        if (!claimed) continue;
        const input = plan.inputFor(mr.goal, row, handles);
        const woken = await createWakeRuns(tx, {
          workspaceId: mr.workspaceId,
          agentIds: [node.agentId],
          trigger: "mission",
          threadId: null,
          roomId: null,
          sourceMessageId: null,
          inputText: input.text,
          hop: 0,
          chain: { onBehalfOfUserId: mr.startedByUserId, via: input.via, originSessionId: null, originRoomId: null },
          owner: runtime.deps.instanceId,
          taint: input.taint,
          mission: { runId: mr.id, nodeId: row.nodeId },
        });
        const runId = woken.runIds[0];
        if (!runId) {
          // Its agent is paused: the turn goes back to waiting, held, and is started once the agent is resumed.
          await tx.update(missionNodes).set({ state: "waiting", held: true, startedAt: null }).where(eq(missionNodes.id, row.id));
          if (!row.held) events.push({ type: "node_held", payload: { nodeId: row.nodeId, agent, reason: "Its agent is paused." } });
          continue;
        }
        await tx.update(missionNodes).set({ runId }).where(eq(missionNodes.id, row.id));
        events.push({ type: "node_started", payload: { nodeId: row.nodeId, round: row.round, runId, agent, role: node.role } });
        started.push(runId);
        room -= 1;
      }
      return events.length > 0 ? events : null;
    });
    runtime.startRuns(started);
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
      if (r.runId && (r.runState === "suspended" || r.runState === "queued")) {
        await endRunFromOutside(db, bus, r.runId, { from: [r.runState], to: "cancelled", code: "cancelled", message: "The mission was stopped." });
      } else if (r.runId && r.runState === "running") {
        await runtime.stopRun(r.runId);
      }
      await db
        .update(missionNodes)
        .set({ state: "cancelled", finishedAt: new Date() })
        .where(and(eq(missionNodes.id, r.id), eq(missionNodes.state, "running")));
    }
  }

  async function missionCredits(missionRunId: string): Promise<number> {
    const [row] = await db.select({ c: sql<number>`coalesce(sum(${agentRuns.credits}), 0)::float8` }).from(agentRuns).where(eq(agentRuns.missionRunId, missionRunId));
    return Number(row?.c ?? 0);
  }

  /** Ends the mission once, with its terminal event and feed item. */
  async function finish(mr: MissionRun, end: { state: "succeeded" | "failed" | "cancelled"; result?: string; error?: string; failedNodeId?: string }): Promise<boolean> {
    const credits = await missionCredits(mr.id);
    const [crew] = await db.select({ name: missions.name }).from(missions).where(eq(missions.id, mr.missionId));
    const won = await write(mr.id, async (tx, feed) => {
      const [row] = await tx
        .update(missionRuns)
        .set({ state: end.state, result: end.result === undefined ? null : { text: end.result }, error: end.error ?? null, failedNodeId: end.failedNodeId ?? null, credits, finishedAt: new Date() })
        .where(and(eq(missionRuns.id, mr.id), inArray(missionRuns.state, ["queued", "running"])))
        .returning({ id: missionRuns.id });
      if (!row) return null;
      feed.push({
        ...feedBase(mr),
        kind: "mission_finished",
        payload: { missionId: mr.id, crew: crew?.name ?? null, goal: preview(mr.goal), state: end.state, error: end.error ?? null, failedNodeId: end.failedNodeId ?? null, result: end.result ? preview(end.result) : null },
      });
      return [{ type: "mission_finished", payload: { state: end.state, error: end.error ?? null, failedNodeId: end.failedNodeId ?? null, result: end.result ?? null } }];
    });
    if (!won) return false;
    if (end.state !== "succeeded") await stopTurns(mr);
    for (const listener of finishListeners) {
      listener(mr.id).catch((error) => logError(`After mission ${mr.id} finished`, error));
    }
    return true;
  }

  async function step(missionRunId: string): Promise<void> {
    const [mr] = await db.select().from(missionRuns).where(eq(missionRuns.id, missionRunId));
    if (!mr || mr.state !== "running" || !mr.topology) return;
    const handles = await handlesOf(mr.workspaceId);
    const load = async () => db.select().from(missionNodes).where(eq(missionNodes.missionRunId, mr.id));
    let rows = await load();
    const runIds = rows.flatMap((r) => (r.state === "running" && r.runId ? [r.runId] : []));
    const runs = runIds.length
      ? new Map((await db.select({ id: agentRuns.id, state: agentRuns.state, error: agentRuns.error }).from(agentRuns).where(inArray(agentRuns.id, runIds))).map((r) => [r.id, r]))
      : new Map();
    let plan = new MissionPlan(mr.topology, rows);
    let settled = false;
    for (const row of rows) {
      const run = row.runId ? runs.get(row.runId) : undefined;
      if (row.state !== "running" || !run) continue;
      if (run.state === "succeeded" || run.state === "failed" || run.state === "cancelled") {
        const ended = await settle(mr, plan, row, handles, run);
        // The plan holds these rows: later turns of this pass see the ended one; new loop rounds are read once below.
        Object.assign(row, ended);
        settled = true;
      } else if (run.state === "suspended") {
        await noteApproval(mr, row, handles);
      }
    }
    if (settled) rows = await load();
    plan = new MissionPlan(mr.topology, rows);

    const failed = rows.find((r) => r.state === "failed");
    if (failed && !mr.topology.continueOnFailure) {
      const node = mr.topology.nodes.find((n) => n.id === failed.nodeId)!;
      await finish(mr, {
        state: "failed",
        failedNodeId: failed.nodeId,
        error: `Node "${node.id}" (${node.role}, @${handles.get(node.agentId) ?? "unknown"}) failed: ${failed.error ?? "its run failed."}`,
      });
      return;
    }
    const ready = plan.ready();
    if (ready.length > 0) await startTurns(mr, plan, ready, handles);
    if (plan.allFinal()) await finish(mr, { state: "succeeded", result: plan.result() });
  }

  function advance(missionRunId: string): Promise<void> {
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

  runtime.onRunSettled((runId) => {
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
      const [mr, written] = await db.transaction(async (tx) => {
        const created = await tx
          .insert(missionRuns)
          .values({ workspaceId: input.workspaceId, missionId: crew.id, goal: input.goal, topology, state: "running", startedByUserId: input.userId, startedAt: new Date() })
          .returning();
        await tx.insert(missionNodes).values(topology.nodes.map((n) => ({ workspaceId: input.workspaceId, missionRunId: created[0]!.id, nodeId: n.id, round: 0, agentId: n.agentId })));
        await insertMissionEvents(tx, created[0]!.id, [{ type: "mission_started", payload: { goal: input.goal, crewId: crew.id, crew: crew.name } }]);
        const written = await insertFeedItems(tx, [{ workspaceId: input.workspaceId, kind: "mission_started", payload: { missionId: created[0]!.id, crew: crew.name, goal: preview(input.goal) } }]);
        return [created[0], written] as const;
      });
      await notifyMission(bus, mr!.id, 1);
      await notifyFeed(bus, written);
      void advance(mr!.id);
      return { missionId: mr!.id };
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
      if (mr.startedByUserId !== by.userId && !hasRole(by.role, "manager")) {
        throw new AppError("forbidden:mission", "Only the person who started this mission, or a manager, can stop it.");
      }
      if (!(await finish(mr, { state: "cancelled", error: "Stopped by a person." }))) {
        throw new AppError("conflict:mission", `This mission has already ${mr.state === "succeeded" ? "finished" : mr.state}.`);
      }
    },

    async drain() {
      while (inFlight.size > 0) await Promise.all([...inFlight.values()].map((e) => e.done));
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
