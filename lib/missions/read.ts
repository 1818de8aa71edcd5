import { and, desc, eq, inArray } from "drizzle-orm";
import type { Viewer } from "../access/access";
import { creditsForViewer } from "../access/redact";
import type { Db } from "../db/client";
import { agentRuns, agents, missionNodes, missionRuns, missions, steps, type MissionRun } from "../db/schema";
import { AppError } from "../errors";
import { DEFAULT_CONCURRENCY } from "./topology";

/** Missions as a member of the workspace sees them; credits only for those who see spend. */

export type NodeState = "waiting" | "paused" | "running" | "awaiting_approval" | "done" | "failed" | "cancelled" | "skipped";

export interface MissionNodeView {
  id: string;
  role: string;
  agentId: string;
  agentHandle: string | null;
  instructions: string;
  position: { x: number; y: number } | null;
  state: NodeState;
  round: number;
  runIds: string[];
  /** Each of the node's runs (one per round) with its tokens and cost. */
  turns: { runId: string; tokens: number; credits: number | null }[];
  /** The latest step of the node's latest run (the one awaiting approval, while it waits): where "open the run" lands. */
  stepId: string | null;
  inputTokens: number;
  outputTokens: number;
  credits: number | null;
}

export interface MissionView {
  id: string;
  state: MissionRun["state"];
  goal: string;
  crewId: string;
  crewName: string;
  nodes: MissionNodeView[];
  edges: { from: string; to: string }[];
  maxRounds: number | null;
  concurrency: number;
  result: string | null;
  error: string | null;
  failedNodeId: string | null;
  inputTokens: number;
  outputTokens: number;
  credits: number | null;
  lastSeq: number;
  startedAt: string | null;
  finishedAt: string | null;
}

export async function getMissionRunRow(db: Db, workspaceId: string, missionRunId: string): Promise<MissionRun> {
  const [row] = await db
    .select()
    .from(missionRuns)
    .where(and(eq(missionRuns.id, missionRunId), eq(missionRuns.workspaceId, workspaceId)));
  if (!row) throw new AppError("not_found:mission");
  return row;
}

export async function getMission(db: Db, workspaceId: string, missionRunId: string, viewer: Viewer): Promise<MissionView> {
  return (await views(db, workspaceId, [await getMissionRunRow(db, workspaceId, missionRunId)], viewer))[0]!;
}

export async function listMissions(db: Db, workspaceId: string, viewer: Viewer, limit = 100): Promise<MissionView[]> {
  const rows = await db.select().from(missionRuns).where(eq(missionRuns.workspaceId, workspaceId)).orderBy(desc(missionRuns.createdAt)).limit(limit);
  return views(db, workspaceId, rows, viewer);
}

async function views(db: Db, workspaceId: string, rows: MissionRun[], viewer: Viewer): Promise<MissionView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [turns, runs, crews, handles] = await Promise.all([
    db.select().from(missionNodes).where(inArray(missionNodes.missionRunId, ids)),
    db
      .select({ id: agentRuns.id, state: agentRuns.state, inputTokens: agentRuns.inputTokens, outputTokens: agentRuns.outputTokens, credits: agentRuns.credits })
      .from(agentRuns)
      .where(and(eq(agentRuns.workspaceId, workspaceId), inArray(agentRuns.missionRunId, ids))),
    db.select({ id: missions.id, name: missions.name }).from(missions).where(inArray(missions.id, [...new Set(rows.map((r) => r.missionId))])),
    db.select({ id: agents.id, handle: agents.handle }).from(agents).where(eq(agents.workspaceId, workspaceId)),
  ]);
  const runById = new Map(runs.map((r) => [r.id, r]));
  const lastStep = new Map<string, string>();
  if (runs.length > 0) {
    const stepRows = await db
      .select({ id: steps.id, runId: steps.runId })
      .from(steps)
      .where(and(eq(steps.workspaceId, workspaceId), inArray(steps.runId, runs.map((r) => r.id))))
      .orderBy(steps.position);
    for (const step of stepRows) lastStep.set(step.runId, step.id);
  }
  const handleOf = new Map(handles.map((a) => [a.id, a.handle]));
  const crewName = new Map(crews.map((c) => [c.id, c.name]));
  return rows.map((mr) => {
    const topology = mr.topology ?? { nodes: [], edges: [] };
    const mine = turns.filter((t) => t.missionRunId === mr.id);
    const nodes = topology.nodes.map((n): MissionNodeView => {
      const own = mine.filter((t) => t.nodeId === n.id).sort((a, b) => a.round - b.round);
      const last = own[own.length - 1];
      const nodeRuns = own.flatMap((t) => (t.runId && runById.has(t.runId) ? [runById.get(t.runId)!] : []));
      let state: NodeState = "waiting";
      if (last) {
        if (last.state === "waiting") state = last.held ? "paused" : "waiting";
        else if (last.state === "running") state = last.runId && runById.get(last.runId)?.state === "suspended" ? "awaiting_approval" : "running";
        else if (last.state === "succeeded") state = "done";
        else state = last.state;
      }
      return {
        id: n.id,
        role: n.role,
        agentId: n.agentId,
        agentHandle: handleOf.get(n.agentId) ?? null,
        instructions: n.instructions,
        position: n.position ?? null,
        state,
        round: last?.round ?? 0,
        runIds: nodeRuns.map((r) => r.id),
        turns: nodeRuns.map((r) => ({ runId: r.id, tokens: r.inputTokens + r.outputTokens, credits: creditsForViewer(viewer, r.credits) })),
        stepId: nodeRuns.length ? (lastStep.get(nodeRuns[nodeRuns.length - 1]!.id) ?? null) : null,
        inputTokens: nodeRuns.reduce((s, r) => s + r.inputTokens, 0),
        outputTokens: nodeRuns.reduce((s, r) => s + r.outputTokens, 0),
        credits: creditsForViewer(viewer, nodeRuns.reduce((s, r) => s + r.credits, 0)),
      };
    });
    const all = runs.filter((r) => mine.some((t) => t.runId === r.id));
    return {
      id: mr.id,
      state: mr.state,
      goal: mr.goal,
      crewId: mr.missionId,
      crewName: crewName.get(mr.missionId) ?? "",
      nodes,
      edges: topology.edges,
      maxRounds: topology.maxRounds ?? null,
      concurrency: topology.concurrency ?? DEFAULT_CONCURRENCY,
      result: (mr.result as { text?: string } | null)?.text ?? null,
      error: mr.error,
      failedNodeId: mr.failedNodeId,
      inputTokens: all.reduce((s, r) => s + r.inputTokens, 0),
      outputTokens: all.reduce((s, r) => s + r.outputTokens, 0),
      credits: creditsForViewer(viewer, all.reduce((s, r) => s + r.credits, 0)),
      capCredits: mr.capCredits === null ? null : creditsForViewer(viewer, mr.capCredits + mr.capRaisedCredits),
      lastSeq: mr.lastSeq,
      startedAt: mr.startedAt?.toISOString() ?? null,
      finishedAt: mr.finishedAt?.toISOString() ?? null,
    };
  });
}

