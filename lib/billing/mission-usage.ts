import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { missionRuns, missions, usageEvents } from "../db/schema";
import { truncate } from "../text";
import type { HourRange } from "./range";

const sum = (column: unknown) => sql<number>`coalesce(sum(${column}), 0)::float8`.mapWith(Number);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Spend of mission turns per mission over whole hours, from the ledger's rows
 * (source `mission_run`, source id: the mission run): the hourly rollups do
 * not carry the mission. A row is counted in the hour its rollup counts it.
 */
export async function missionUsage(db: Db, workspaceId: string, range: HourRange, granularity: "hour" | "day", tz: string) {
  const where = and(
    eq(usageEvents.workspaceId, workspaceId),
    eq(usageEvents.sourceKind, "mission_run"),
    gte(usageEvents.createdAt, range.from),
    lt(usageEvents.createdAt, range.to),
  );
  const key = sql<string>`coalesce(${usageEvents.sourceId}, '')`;
  const hour = sql`date_trunc('hour', ${usageEvents.createdAt}, 'UTC')`;
  const at = granularity === "hour" ? hour : sql`date_trunc('day', ${hour}, ${tz})`;
  const [grouped, series] = await Promise.all([
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
        computeCalls: sql<number>`0`.mapWith(Number),
      })
      .from(usageEvents)
      .where(where)
      .groupBy(sql`1`),
    db
      .select({
        at: sql<string>`to_char((${at}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"')`,
        key,
        credits: sum(usageEvents.credits),
        tokens: sum(sql`${usageEvents.inputTokens} + ${usageEvents.outputTokens}`),
      })
      .from(usageEvents)
      .where(where)
      .groupBy(sql`1`, sql`2`)
      .orderBy(sql`1`),
  ]);
  return { grouped, series };
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
