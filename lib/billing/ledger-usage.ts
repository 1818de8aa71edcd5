import { and, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { alias, type PgSelect } from "drizzle-orm/pg-core";
import type { Db } from "../db/client";
import { agentRuns, approvals, comparisons, missionRuns, missions, usageEvents, users } from "../db/schema";
import { truncate } from "../text";
import type { HourRange } from "./range";

const sum = (column: unknown) => sql<number>`coalesce(sum(${column}), 0)::float8`.mapWith(Number);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The run a governor's call judged a request of (through the approval its source names). */
const judgedRuns = alias(agentRuns, "judged_runs");

/**
 * Whom a ledger row was spent for: the person a run acted for (or who started it), the same for the run whose
 * request the governor judged, the person who started a comparison its judge scored; '' for none (a removed
 * person, or the workspace itself).
 */
const personKey = sql<string>`coalesce(${agentRuns.onBehalfOfUserId}, ${agentRuns.userId}, ${judgedRuns.onBehalfOfUserId}, ${judgedRuns.userId}, ${comparisons.startedByUserId})::text`;

/** What a ledger-read grouping groups by: the mission run, the kind of run, or the person. */
export type LedgerKey = "mission" | "run_trigger" | "person";

const keys: Record<LedgerKey, SQL<string>> = {
  mission: sql<string>`coalesce(${usageEvents.sourceId}, '')`,
  // A run's row by what started the run: a chat message, another agent, a room post, the door.
  run_trigger: sql<string>`'run:' || coalesce(${agentRuns.trigger}::text, 'gone')`,
  person: sql<string>`coalesce(${personKey}, '')`,
};

/**
 * Spend over whole hours read from the ledger's rows, for what the hourly rollups do not carry (the mission, the
 * kind of run, the person), optionally of one source kind only. A row is counted in the hour its rollup counts it,
 * so totals match the rollups'.
 */
export async function ledgerUsage(
  db: Db,
  workspaceId: string,
  range: HourRange,
  granularity: "hour" | "day",
  tz: string,
  by: LedgerKey,
  sourceKind?: (typeof usageEvents.sourceKind.enumValues)[number],
) {
  const where = and(
    eq(usageEvents.workspaceId, workspaceId),
    sourceKind ? eq(usageEvents.sourceKind, sourceKind) : undefined,
    gte(usageEvents.createdAt, range.from),
    lt(usageEvents.createdAt, range.to),
  );
  const key = keys[by];
  const hour = sql`date_trunc('hour', ${usageEvents.createdAt}, 'UTC')`;
  const at = granularity === "hour" ? hour : sql`date_trunc('day', ${hour}, ${tz})`;
  // Only what the key reads is joined: the mission needs nothing, the kind of run its run, the person all four.
  const joined = <T extends PgSelect>(q: T) => {
    if (by === "mission") return q;
    const runs = q.leftJoin(agentRuns, eq(agentRuns.id, usageEvents.runId));
    if (by === "run_trigger") return runs;
    return runs
      .leftJoin(approvals, and(eq(usageEvents.sourceKind, "governor"), eq(sql`${approvals.id}::text`, usageEvents.sourceId)))
      .leftJoin(judgedRuns, eq(judgedRuns.id, approvals.runId))
      .leftJoin(comparisons, and(eq(usageEvents.sourceKind, "judge"), eq(sql`${comparisons.id}::text`, usageEvents.sourceId)));
  };
  const [grouped, series] = await Promise.all([
    joined(
      db
        .select({
          key,
          calls: sql<number>`count(*)::float8`.mapWith(Number),
          inputTokens: sum(usageEvents.inputTokens),
          outputTokens: sum(usageEvents.outputTokens),
          cacheReadTokens: sum(usageEvents.cacheReadTokens),
          cacheWriteTokens: sum(usageEvents.cacheWriteTokens),
          credits: sum(usageEvents.credits),
          unpricedCalls: sum(usageEvents.unpriced),
          computeMs: sum(usageEvents.computeMs),
          computeCalls: sql<number>`count(*) filter (where ${usageEvents.sourceKind} = 'compute')::float8`.mapWith(Number),
        })
        .from(usageEvents)
        .$dynamic(),
    )
      .where(where)
      .groupBy(sql`1`),
    joined(
      db
        .select({
          at: sql<string>`to_char((${at}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"')`,
          key,
          credits: sum(usageEvents.credits),
          tokens: sum(sql`${usageEvents.inputTokens} + ${usageEvents.outputTokens}`),
        })
        .from(usageEvents)
        .$dynamic(),
    )
      .where(where)
      .groupBy(sql`1`, sql`2`)
      .orderBy(sql`1`),
  ]);
  return { grouped, series };
}

/** Each person's name by id, members and former members alike. */
export async function personLabels(db: Db, ids: string[]): Promise<Map<string, string>> {
  const valid = ids.filter((id) => UUID.test(id));
  if (valid.length === 0) return new Map();
  const rows = await db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, valid));
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** "Crew: goal" for each mission run id of this workspace. */
export async function missionLabels(db: Db, workspaceId: string, ids: string[]): Promise<Map<string, string>> {
  const valid = ids.filter((id) => UUID.test(id));
  if (valid.length === 0) return new Map();
  const rows = await db
    .select({ id: missionRuns.id, goal: missionRuns.goal, crew: missions.name })
    .from(missionRuns)
    .innerJoin(missions, eq(missions.id, missionRuns.missionId))
    .where(and(eq(missionRuns.workspaceId, workspaceId), inArray(missionRuns.id, valid)));
  return new Map(rows.map((r) => [r.id, `${r.crew}: ${truncate(r.goal.replace(/\s+/g, " ").trim(), 80, "…")}`]));
}
