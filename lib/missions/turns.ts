// The parts of a mission's step that need nothing but their arguments: what one scheduler transaction carries, the
// read of a mission's turns, how ended turns are settled, and the agents' handles the journal and the feed show.
import { eq, sql } from "drizzle-orm";
import { rowsOf, type Db } from "../db/client";
import { agentRuns, agents, missionNodes, type MissionNode, type MissionRun } from "../db/schema";
import type { FeedItemInput } from "../feed/feed";
import { plainPreview } from "../plain-preview";
import type { MissionEventInput } from "./journal";
import type { MissionPlan } from "./plan";

/** One transaction of the scheduler: what it journals, tells the feed, and does once committed. */
export interface Pass {
  tx: Db;
  events: MissionEventInput[];
  feed: FeedItemInput[];
  after: (() => Promise<void> | void)[];
}

/** A turn still marked running whose run has ended, and how it ended. */
export type Ended = { row: MissionNode; run: { state: string; error: string | null } };

/** What the journal and the feed show of a handed-over text or a result: its words, without the markdown. */
export const preview = (text: string) => plainPreview(text, 200);

const HANDLES_TTL_MS = 5_000;

/**
 * The agents' handles of a workspace, by id, for what the journal, the feed and a turn's input show: read once and
 * kept a few seconds, so a rename shows within that. An agent made since the read is not in it: asked for, it is
 * read again.
 */
export function handleCache(db: Db): (workspaceId: string, needed: string[]) => Promise<Map<string, string>> {
  const cache = new Map<string, { at: number; handles: Promise<Map<string, string>> }>();
  return async (workspaceId, needed) => {
    const cached = cache.get(workspaceId);
    if (cached && performance.now() - cached.at < HANDLES_TTL_MS) {
      const handles = await cached.handles.catch(() => null);
      if (handles && needed.every((id) => handles.has(id))) return handles;
    }
    const handles = db
      .select({ id: agents.id, handle: agents.handle })
      .from(agents)
      .where(eq(agents.workspaceId, workspaceId))
      .then((rows) => new Map(rows.map((a) => [a.id, a.handle])));
    cache.set(workspaceId, { at: performance.now(), handles });
    handles.catch(() => cache.delete(workspaceId));
    return handles;
  };
}

/**
 * Every turn of a mission with the state of its run, in one read. A turn
 * still marked running whose run has succeeded comes with that run's text
 * (its output, read from the run's journal), so settling it needs no
 * other read; `outputs: false` leaves the texts out.
 */
export async function loadTurns(from: Db, missionRunId: string, options: { outputs: boolean } = { outputs: true }) {
  const output = options.outputs
    ? sql<string | null>`case when ${missionNodes.state} = 'running' and ${agentRuns.state} = 'succeeded' then (
        select coalesce(string_agg(e.payload->>'delta', '' order by e.seq), '') from run_events e where e.run_id = ${agentRuns.id} and e.type = 'text'
      ) end`
    : sql<string | null>`null::text`;
  return from
    .select({ row: missionNodes, runState: agentRuns.state, runError: agentRuns.error, runTaint: agentRuns.taint, runOutput: output })
    .from(missionNodes)
    .leftJoin(agentRuns, eq(agentRuns.id, missionNodes.runId))
    .where(eq(missionNodes.missionRunId, missionRunId));
}

/** What every feed item of a mission starts with. */
export const feedBase = (mr: MissionRun) => ({ workspaceId: mr.workspaceId });

/**
 * Records how running turns' runs ended, once each, and hands their outputs
 * on. Returns whether the turns must be read again: a review loop got a new
 * round, or another process settled a turn first.
 */
export async function settleTurns({ tx, events, feed }: Pass, mr: MissionRun, plan: MissionPlan, ended: Ended[], outputs: Map<string, string>, handles: Map<string, string>): Promise<boolean> {
  const topology = mr.topology!;
  let readAgain = false;
  // One text is handed on every outgoing edge: its preview is made once.
  const previews = new Map<string, string>();
  const previewOf = (text: string) => previews.get(text) ?? previews.set(text, preview(text)).get(text)!;
  const outcomes = ended.map(({ row, run }) => {
    const ok = run.state === "succeeded";
    return {
      row,
      ok,
      output: ok ? (outputs.get(row.runId!) ?? "") : null,
      error: ok ? null : run.state === "cancelled" ? "Its run was stopped." : (run.error ?? "Its run failed."),
    };
  });
  // One statement for every turn that ended; the rows are locked in id order, the same in every process.
  const finishedAt = new Date().toISOString();
  const values = sql.join(
    outcomes.map((o) => sql`(${o.row.id}::uuid, ${o.ok ? "succeeded" : "failed"}::mission_node_state, ${o.output}::text, ${o.error}::text)`),
    sql`, `,
  );
  const ids = sql.join(outcomes.map((o) => sql`${o.row.id}::uuid`), sql`, `);
  const won = new Set(
    rowsOf<{ id: string }>(
      await tx.execute(sql`
        update mission_nodes set state = v.state, output = v.output, error = v.error, finished_at = ${finishedAt}::timestamptz
        from (values ${values}) as v(id, state, output, error)
        where mission_nodes.id = v.id and mission_nodes.state = 'running'
          and mission_nodes.id in (select id from mission_nodes where id in (${ids}) order by id for update)
        returning mission_nodes.id as id`),
    ).map((r) => r.id),
  );
  for (const { row, ok, output, error } of outcomes) {
    const node = topology.nodes.find((n) => n.id === row.nodeId)!;
    const handle = handles.get(node.agentId) ?? "unknown";
    // The plan holds this row: the turns settled after it in this pass see it ended.
    Object.assign(row, { state: ok ? "succeeded" : "failed", output, error });
    if (!won.has(row.id)) {
      readAgain = true;
      continue;
    }
    events.push({ type: "node_finished", payload: { nodeId: row.nodeId, round: row.round, runId: row.runId, state: ok ? "succeeded" : "failed", error, preview: output ? previewOf(output) : null } });
    if (!ok) continue;
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
        readAgain = true;
      }
    }
    for (const to of targets) {
      const target = topology.nodes.find((n) => n.id === to)!;
      const toHandle = handles.get(target.agentId) ?? "unknown";
      const payload = { missionId: mr.id, from: { nodeId: node.id, role: node.role, agent: handle }, to: { nodeId: to, role: target.role, agent: toHandle }, preview: previewOf(handedText) };
      events.push({ type: "handoff", payload });
      feed.push({ ...feedBase(mr), kind: "mission_handoff", agentId: node.agentId, targetAgentId: target.agentId, runId: row.runId, payload });
    }
  }
  return readAgain;
}
