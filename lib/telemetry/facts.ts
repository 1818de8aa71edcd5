// What a span is built from: the rows the journal's facts were committed to, read after the commit.
import { desc, eq, sql } from "drizzle-orm";
import { rowsOf, type Db } from "../db/client";
import { agentMessages, agentRuns, agents, approvals, missionRuns, missions, steps } from "../db/schema";
import { spanIdOf, traceIdOf } from "./ids";

/** Where a run's span sits: its trace, its parent (the mission's span or the waking run's), and what put it there. */
export interface TraceContext {
  traceId: string;
  parentSpanId: string | null;
  missionRunId: string | null;
  /** The run whose agent's message woke this one. */
  wokenBy: string | null;
}

/** Hops followed at most from a run to the run that began its chain (the workspace's hop limit is far below). */
const MAX_CHAIN = 64;

/**
 * A run's trace context, from the chain of agent messages that led to it: a mission's run is a child of the mission's
 * span; a run woken by another agent's message is a child of that run's span, in the trace of the run (or mission)
 * the chain began with; any other run begins a trace of its own.
 */
export async function traceContextOf(db: Db, runId: string): Promise<TraceContext | null> {
  const result = await db.execute(sql`
    with recursive chain(id, mission_run_id, woken_by, depth) as (
      select r.id, r.mission_run_id, m.run_id, 0
      from ${agentRuns} as r left join ${agentMessages} as m on m.id = r.source_message_id
      where r.id = ${runId}
      union all
      select r.id, r.mission_run_id, m.run_id, c.depth + 1
      from chain as c join ${agentRuns} as r on r.id = c.woken_by left join ${agentMessages} as m on m.id = r.source_message_id
      where c.mission_run_id is null and c.depth < ${MAX_CHAIN}
    )
    select id, mission_run_id, woken_by from chain order by depth
  `);
  const chain = rowsOf<{ id: string; mission_run_id: string | null; woken_by: string | null }>(result);
  const run = chain[0];
  const root = chain[chain.length - 1];
  if (!run || !root) return null;
  return {
    traceId: root.mission_run_id ? traceIdOf({ missionRunId: root.mission_run_id }) : traceIdOf({ runId: root.id }),
    parentSpanId: run.mission_run_id ? spanIdOf("mission", run.mission_run_id) : run.woken_by ? spanIdOf("run", run.woken_by) : null,
    missionRunId: run.mission_run_id,
    wokenBy: run.mission_run_id ? null : run.woken_by,
  };
}

export type RunFacts = NonNullable<Awaited<ReturnType<typeof runFacts>>>;

/** An ended run and its agent's handle. */
export async function runFacts(db: Db, runId: string) {
  const [row] = await db
    .select({ run: agentRuns, handle: agents.handle })
    .from(agentRuns)
    .leftJoin(agents, eq(agents.id, agentRuns.agentId))
    .where(eq(agentRuns.id, runId));
  return row ?? null;
}

export type StepFacts = NonNullable<Awaited<ReturnType<typeof stepFacts>>>;

/** A finished step, and the approval it waited for, if it did (the latest, should it have been asked twice). */
export async function stepFacts(db: Db, stepId: string) {
  const [[step], [approval]] = await Promise.all([
    db.select().from(steps).where(eq(steps.id, stepId)),
    db
      .select({ id: approvals.id, status: approvals.status, createdAt: approvals.createdAt, decidedAt: approvals.decidedAt })
      .from(approvals)
      .where(eq(approvals.stepId, stepId))
      .orderBy(desc(approvals.createdAt))
      .limit(1),
  ]);
  return step ? { step, approval: approval ?? null } : null;
}

export type MissionFacts = NonNullable<Awaited<ReturnType<typeof missionFacts>>>;

/** An ended mission and its crew's name. */
export async function missionFacts(db: Db, missionRunId: string) {
  const [row] = await db
    .select({ mission: missionRuns, crew: missions.name })
    .from(missionRuns)
    .leftJoin(missions, eq(missions.id, missionRuns.missionId))
    .where(eq(missionRuns.id, missionRunId));
  return row ?? null;
}
