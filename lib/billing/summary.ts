import { and, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { rowsOf, type Db } from "../db/client";
import { agentMessages, agentRuns, agents, approvals, workspaces } from "../db/schema";
import { CREDITS_PER_USD, isNominal, resolvePrice } from "./prices";
import { loadWorkspacePrices } from "./price-book";
import { DAY_MS, HOUR_MS, rangeFields, resolveRange, toHourRange, type HourRange } from "./range";
import { planRollups, rollupRows } from "./rollup-plan";
import { escalateAfterMinutes } from "../escalation";

/** Defaults to the last 24 hours; the overview sends local midnight to now ("today"). */
export const summaryQuerySchema = z.object(rangeFields).transform((q) => resolveRange(q, DAY_MS));


export interface SpendPeriod {
  key: "range" | "7d" | "30d";
  from: string;
  to: string;
  credits: number;
  previousCredits: number;
  /** Change against the previous period of the same length, or null when that was zero. */
  change: number | null;
}

export interface UsageSummary {
  range: { from: string; to: string };
  /** Left out for people who may not see spend (members). */
  spend: {
    periods: SpendPeriod[];
    topAgents: { agentId: string | null; handle: string | null; name: string | null; credits: number; calls: number }[];
    /** Credits of the 30-day period spent on the offline model, whose price is nominal. */
    nominalCredits: number;
    /**
     * What prompt caching saved, in credits, over the range and the 30 days: the cached tokens at each model's input
     * price at the workspace's prices now, less what they were charged (reads cost less, writes a little more; negative
     * when writes outweighed reads).
     */
    savedByCaching: { range: number; "30d": number };
  } | null;
  activity: {
    runs: number;
    toolCalls: number;
    modelCalls: number;
    chatMessages: number;
    /** Tool calls that came through the door (MCP): the steps of door runs. */
    doorCalls: number;
    agentMessages: number;
    approvalsPending: number;
    approvalsDecided: number;
    /** How long people took to decide, from asking to deciding (the range's decisions by a person); null without any. */
    decisionP50Ms: number | null;
    decisionP95Ms: number | null;
    /** Requests waiting longer than the workspace's escalation time (`waitingLongAfterMinutes`). */
    waitingLong: number;
    waitingLongAfterMinutes: number;
    activeAgents: number;
    failedRuns: number;
    budgetStops: number;
    /** Runs started in each of the 24 hours up to the end of the range. */
    hourly: { hour: string; runs: number }[];
  };
  throughput: {
    tokens: number;
    tokensPerMinute: number;
    runsPerMinute: number;
    /** Runs started in the hour before the range's end (or before now, when the range ends later). */
    runsLastHour: number;
    p50RunMs: number | null;
    p95RunMs: number | null;
    p50FirstTokenMs: number | null;
  };
}

const change = (now: number, before: number) => (before === 0 ? null : (now - before) / before);
const iso = (d: Date) => d.toISOString();
const shift = (d: Date, ms: number) => new Date(d.getTime() + ms);

/**
 * What the overview cards show. Spend and tokens come from the rollups only
 * (daily and hourly, never the raw ledger); runs, durations and approvals from their own
 * tables, always within the range (indexed on workspace and time).
 */
export async function getUsageSummary(
  db: Db,
  workspaceId: string,
  input: { from: Date; to: Date; includeSpend: boolean; now?: Date },
): Promise<UsageSummary> {
  const range = toHourRange(input.from, input.to);
  const now = input.now ?? new Date();
  // Rates are per minute of the range that has happened (a range ending in the future counts up to now).
  const elapsedMinutes = Math.max(1, (Math.min(range.to.getTime(), now.getTime()) - range.from.getTime()) / 60_000);
  const lastHourEnd = new Date(Math.min(range.to.getTime(), now.getTime()));
  const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId));
  const waitingAfter = Math.max(1, escalateAfterMinutes(ws?.settings));
  const waitingSince = iso(shift(now, -waitingAfter * 60_000));
  const [figures, runs, hourly, messages, approvalCounts, lastHour] = await Promise.all([
    rollupFigures(db, workspaceId, range, input.includeSpend),
    runStats(db, workspaceId, range),
    hourlyRuns(db, workspaceId, range.to),
    db
      .select({ n: sql<number>`count(*)::int`.mapWith(Number) })
      .from(agentMessages)
      .where(and(eq(agentMessages.workspaceId, workspaceId), gte(agentMessages.createdAt, range.from), lt(agentMessages.createdAt, range.to))),
    db
      .select({
        pending: sql<number>`count(*) filter (where ${approvals.status} = 'pending')::int`.mapWith(Number),
        decided: sql<number>`count(*) filter (where ${approvals.status} in ('approved', 'rejected') and ${approvals.decidedAt} >= ${iso(range.from)}::timestamptz and ${approvals.decidedAt} < ${iso(range.to)}::timestamptz)::int`.mapWith(Number),
        waitingLong: sql<number>`count(*) filter (where ${approvals.status} = 'pending' and ${approvals.createdAt} < ${waitingSince}::timestamptz)::int`.mapWith(Number),
        p50: sql<number | null>`percentile_cont(0.5) within group (order by extract(epoch from ${approvals.decidedAt} - ${approvals.createdAt}) * 1000) filter (where ${approvals.decidedByUserId} is not null and ${approvals.decidedAt} >= ${iso(range.from)}::timestamptz and ${approvals.decidedAt} < ${iso(range.to)}::timestamptz)`,
        p95: sql<number | null>`percentile_cont(0.95) within group (order by extract(epoch from ${approvals.decidedAt} - ${approvals.createdAt}) * 1000) filter (where ${approvals.decidedByUserId} is not null and ${approvals.decidedAt} >= ${iso(range.from)}::timestamptz and ${approvals.decidedAt} < ${iso(range.to)}::timestamptz)`,
      })
      .from(approvals)
      .where(and(eq(approvals.workspaceId, workspaceId), inArray(approvals.status, ["pending", "approved", "rejected"]))),
    db
      .select({ n: sql<number>`count(*)::int`.mapWith(Number) })
      .from(agentRuns)
      .where(and(eq(agentRuns.workspaceId, workspaceId), gte(agentRuns.createdAt, shift(lastHourEnd, -HOUR_MS)), lt(agentRuns.createdAt, lastHourEnd))),
  ]);
  const { tokens, spend } = figures;
  return {
    range: { from: iso(range.from), to: iso(range.to) },
    spend,
    activity: {
      runs: runs.runs,
      toolCalls: runs.toolCalls,
      modelCalls: figures.calls,
      chatMessages: runs.chatMessages,
      doorCalls: runs.doorCalls,
      agentMessages: messages[0]?.n ?? 0,
      approvalsPending: approvalCounts[0]?.pending ?? 0,
      approvalsDecided: approvalCounts[0]?.decided ?? 0,
      decisionP50Ms: approvalCounts[0]?.p50 == null ? null : Math.round(Number(approvalCounts[0].p50)),
      decisionP95Ms: approvalCounts[0]?.p95 == null ? null : Math.round(Number(approvalCounts[0].p95)),
      waitingLong: approvalCounts[0]?.waitingLong ?? 0,
      waitingLongAfterMinutes: waitingAfter,
      activeAgents: runs.activeAgents,
      failedRuns: runs.failedRuns,
      budgetStops: runs.budgetStops,
      hourly,
    },
    throughput: {
      tokens,
      tokensPerMinute: tokens / elapsedMinutes,
      runsPerMinute: runs.runs / elapsedMinutes,
      runsLastHour: lastHour[0]?.n ?? 0,
      p50RunMs: runs.p50RunMs,
      p95RunMs: runs.p95RunMs,
      p50FirstTokenMs: runs.p50FirstTokenMs,
    },
  };
}

interface RollupFigures {
  tokens: number;
  calls: number;
  spend: NonNullable<UsageSummary["spend"]> | null;
}

/**
 * Tokens and model calls of the range and, for people who see spend, the spend of the range, the 7 and the 30
 * days up to its end, each against the period of the same length before it, the top agents of the 7 days and
 * the nominal credits of the 30: one query over the rollups from the earliest of those periods (60 days for the
 * cards' "today"), grouped by agent and model. Whole UTC days between the periods' edges are read from the daily
 * rollups, the hours around the edges from the hourly ones, so the sums are those of the hourly rollups.
 */
async function rollupFigures(db: Db, workspaceId: string, range: HourRange, includeSpend: boolean): Promise<RollupFigures> {
  const span = range.to.getTime() - range.from.getTime();
  const range0 = { key: "range" as const, from: range.from, to: range.to, before: shift(range.from, -span) };
  const week = { key: "7d" as const, from: shift(range.to, -7 * DAY_MS), to: range.to, before: shift(range.to, -14 * DAY_MS) };
  const month = { key: "30d" as const, from: shift(range.to, -30 * DAY_MS), to: range.to, before: shift(range.to, -60 * DAY_MS) };
  const windows = includeSpend ? [range0, week, month] : [];
  const cuts = windows.flatMap((w) => [w.before, w.from]);
  const earliest = new Date(Math.min(range.from.getTime(), ...cuts.map((c) => c.getTime())));
  const plan = planRollups({ from: earliest, to: range.to }, [range.from, ...cuts]);
  const when = (from: Date, to: Date) => sql`r.bucket >= ${iso(from)}::timestamptz and r.bucket < ${iso(to)}::timestamptz`;
  const sumWhen = (column: SQL, from: Date, to: Date) => sql`coalesce(sum(${column}) filter (where ${when(from, to)}), 0)::float8`;
  const as = (name: string) => sql.raw(`"${name}"`);
  const modelCalls = sql`case when r.source_kind = 'compute' then 0 else r.calls end`;
  const columns = [
    sql`${sumWhen(sql`r.input_tokens + r.output_tokens`, range.from, range.to)} as tokens`,
    // Model calls: a compute row counts seconds of an agent's computer, not calls.
    sql`${sumWhen(modelCalls, range.from, range.to)} as calls`,
    ...windows.flatMap((w) => [sql`${sumWhen(sql`r.credits`, w.from, w.to)} as ${as(`${w.key}_now`)}`, sql`${sumWhen(sql`r.credits`, w.before, w.from)} as ${as(`${w.key}_before`)}`]),
    ...(includeSpend
      ? [
          sql`${sumWhen(modelCalls, week.from, week.to)} as week_calls`,
          ...[range0, month].flatMap((w) => [
            sql`${sumWhen(sql`r.cache_read_tokens`, w.from, w.to)} as ${as(`${w.key}_cache_read`)}`,
            sql`${sumWhen(sql`r.cache_write_tokens`, w.from, w.to)} as ${as(`${w.key}_cache_write`)}`,
          ]),
        ]
      : []),
  ];
  const rows = rowsOf<Record<string, unknown>>(
    await db.execute(sql`
      select g.*, a.handle, a.name from (
        select r.agent_id, r.model, ${sql.join(columns, sql`, `)}
        from ${rollupRows(workspaceId, plan)}
        group by r.agent_id, r.model
      ) g left join ${agents} a on a.id = g.agent_id`),
  );
  const num = (v: unknown) => Number(v ?? 0);
  const tokens = rows.reduce((t, r) => t + num(r.tokens), 0);
  const calls = rows.reduce((t, r) => t + num(r.calls), 0);
  if (!includeSpend) return { tokens, calls, spend: null };
  const credits = (key: string) => rows.reduce((t, r) => t + num(r[key]), 0);
  const byAgent = new Map<string | null, { agentId: string | null; handle: string | null; name: string | null; credits: number; calls: number }>();
  for (const r of rows) {
    const agentId = (r.agent_id as string | null) ?? null;
    const agent = byAgent.get(agentId) ?? { agentId, handle: (r.handle as string | null) ?? null, name: (r.name as string | null) ?? null, credits: 0, calls: 0 };
    agent.credits += num(r["7d_now"]);
    agent.calls += num(r.week_calls);
    byAgent.set(agentId, agent);
  }
  // The agents with the most credits over the 7 days, ties by id (no agent last), as PostgreSQL orders uuids.
  const topAgents = [...byAgent.values()]
    .filter((a) => a.credits > 0)
    .sort((a, b) => b.credits - a.credits || (a.agentId === null ? 1 : b.agentId === null ? -1 : a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0))
    .slice(0, 5);
  return {
    tokens,
    calls,
    spend: {
      periods: windows.map((w) => {
        const now = credits(`${w.key}_now`);
        const before = credits(`${w.key}_before`);
        return { key: w.key, from: iso(w.from), to: iso(w.to), credits: now, previousCredits: before, change: change(now, before) };
      }),
      topAgents,
      nominalCredits: rows.filter((r) => isNominal(String(r.model))).reduce((t, r) => t + num(r["30d_now"]), 0),
      savedByCaching: await savedByCaching(db, workspaceId, rows),
    },
  };
}

/** Credits prompt caching saved per window (see `UsageSummary`), from rows of cached tokens per model. */
async function savedByCaching(db: Db, workspaceId: string, rows: Record<string, unknown>[]): Promise<{ range: number; "30d": number }> {
  const cached = rows.filter((r) => Number(r["30d_cache_read"] ?? 0) + Number(r["30d_cache_write"] ?? 0) > 0);
  if (cached.length === 0) return { range: 0, "30d": 0 };
  const prices = await loadWorkspacePrices(db, workspaceId);
  const saved = (key: "range" | "30d") =>
    Math.round(
      cached.reduce((total, r) => {
        const { rates } = resolvePrice(String(r.model), prices);
        const read = Number(r[`${key}_cache_read`] ?? 0);
        const write = Number(r[`${key}_cache_write`] ?? 0);
        return total + (read * (rates.input - rates.cacheRead) - write * (rates.cacheWrite - rates.input)) / CREDITS_PER_USD;
      }, 0),
    );
  return { range: saved("range"), "30d": saved("30d") };
}

async function runStats(db: Db, workspaceId: string, range: HourRange) {
  const duration = sql`extract(epoch from (${agentRuns.finishedAt} - ${agentRuns.startedAt})) * 1000`;
  const firstToken = sql`extract(epoch from (${agentRuns.firstTokenAt} - ${agentRuns.startedAt})) * 1000`;
  const [row] = await db
    .select({
      runs: sql<number>`count(*)::int`.mapWith(Number),
      toolCalls: sql<number>`coalesce(sum(${agentRuns.stepCount}), 0)::int`.mapWith(Number),
      chatMessages: sql<number>`count(*) filter (where ${agentRuns.trigger} = 'chat')::int`.mapWith(Number),
      doorCalls: sql<number>`coalesce(sum(${agentRuns.stepCount}) filter (where ${agentRuns.trigger} = 'door'), 0)::int`.mapWith(Number),
      activeAgents: sql<number>`count(distinct ${agentRuns.agentId})::int`.mapWith(Number),
      failedRuns: sql<number>`count(*) filter (where ${agentRuns.state} = 'failed')::int`.mapWith(Number),
      budgetStops: sql<number>`count(*) filter (where ${agentRuns.errorCode} = 'unprocessable:budget_exceeded')::int`.mapWith(Number),
      p50RunMs: sql<number | null>`percentile_cont(0.5) within group (order by ${duration}) filter (where ${agentRuns.finishedAt} is not null and ${agentRuns.startedAt} is not null)`,
      p95RunMs: sql<number | null>`percentile_cont(0.95) within group (order by ${duration}) filter (where ${agentRuns.finishedAt} is not null and ${agentRuns.startedAt} is not null)`,
      p50FirstTokenMs: sql<number | null>`percentile_cont(0.5) within group (order by ${firstToken}) filter (where ${agentRuns.firstTokenAt} is not null and ${agentRuns.startedAt} is not null)`,
    })
    .from(agentRuns)
    .where(and(eq(agentRuns.workspaceId, workspaceId), gte(agentRuns.createdAt, range.from), lt(agentRuns.createdAt, range.to)));
  const num = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v)));
  return {
    runs: row?.runs ?? 0,
    toolCalls: row?.toolCalls ?? 0,
    chatMessages: row?.chatMessages ?? 0,
    doorCalls: row?.doorCalls ?? 0,
    activeAgents: row?.activeAgents ?? 0,
    failedRuns: row?.failedRuns ?? 0,
    budgetStops: row?.budgetStops ?? 0,
    p50RunMs: num(row?.p50RunMs),
    p95RunMs: num(row?.p95RunMs),
    p50FirstTokenMs: num(row?.p50FirstTokenMs),
  };
}

/** Runs started per hour over the 24 hours before `end` (a whole hour), zeros included. */
async function hourlyRuns(db: Db, workspaceId: string, end: Date): Promise<{ hour: string; runs: number }[]> {
  const start = shift(end, -24 * HOUR_MS);
  const rows = await db
    .select({
      hour: sql<string>`to_char(${agentRuns.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:00:00.000"Z"')`,
      runs: sql<number>`count(*)::int`.mapWith(Number),
    })
    .from(agentRuns)
    .where(and(eq(agentRuns.workspaceId, workspaceId), gte(agentRuns.createdAt, start), lt(agentRuns.createdAt, end)))
    .groupBy(sql`1`);
  const byHour = new Map(rows.map((r) => [r.hour, r.runs]));
  return Array.from({ length: 24 }, (_, i) => {
    const key = iso(shift(start, i * HOUR_MS));
    return { hour: key, runs: byHour.get(key) ?? 0 };
  });
}
