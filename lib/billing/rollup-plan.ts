import { sql, type SQL } from "drizzle-orm";
import { usageRollupsDaily, usageRollupsHourly } from "../db/schema";
import { DAY_MS, type HourRange } from "./range";

/** Which rollups answer a range: whole UTC days from the daily ones, every other hour from the hourly ones. */
export interface RollupPlan {
  daily: HourRange[];
  hourly: HourRange[];
}

const ceilDay = (ms: number) => Math.ceil(ms / DAY_MS) * DAY_MS;

function push(into: HourRange[], from: number, to: number) {
  if (to <= from) return;
  const last = into[into.length - 1];
  if (last && last.to.getTime() === from) last.to = new Date(to);
  else into.push({ from: new Date(from), to: new Date(to) });
}

/**
 * Splits a range of whole hours into the UTC days that lie wholly inside it and that no cut falls strictly
 * within (read from the daily rollups), and the hours left over (read from the hourly ones). A query that
 * filters on `bucket >= cut` for any of the cuts then counts a day's row exactly when all of its hours would
 * have counted, so the sums are the same as over the hourly rollups alone.
 */
export function planRollups(range: HourRange, cuts: Date[] = []): RollupPlan {
  const from = range.from.getTime();
  const to = range.to.getTime();
  const inner = cuts.map((c) => c.getTime()).filter((c) => c > from && c < to);
  const plan: RollupPlan = { daily: [], hourly: [] };
  let at = from;
  for (let day = ceilDay(from); day + DAY_MS <= to; day += DAY_MS) {
    if (inner.some((c) => c > day && c < day + DAY_MS)) continue;
    push(plan.hourly, at, day);
    push(plan.daily, day, day + DAY_MS);
    at = day + DAY_MS;
  }
  push(plan.hourly, at, to);
  return plan;
}

const ts = (d: Date) => sql`${d.toISOString()}::timestamptz`;

/**
 * The rollup rows of a workspace that make up a plan, as a subquery `r` with the hourly rollups' columns
 * (`bucket` is the hour, or the day for a daily row). One index range scan per piece of the plan.
 */
export function rollupRows(workspaceId: string, plan: RollupPlan): SQL {
  const columns = sql`agent_id, model, source_kind, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, credits, unpriced_calls`;
  const parts = [
    ...plan.daily.map(
      (p) => sql`select day as bucket, ${columns} from ${usageRollupsDaily} where workspace_id = ${workspaceId} and day >= ${ts(p.from)} and day < ${ts(p.to)}`,
    ),
    ...plan.hourly.map(
      (p) => sql`select bucket, ${columns} from ${usageRollupsHourly} where workspace_id = ${workspaceId} and bucket >= ${ts(p.from)} and bucket < ${ts(p.to)}`,
    ),
  ];
  if (parts.length === 0) return sql`(select bucket, ${columns} from ${usageRollupsHourly} where false) as r`;
  return sql`(${sql.join(parts, sql` union all `)}) as r`;
}
