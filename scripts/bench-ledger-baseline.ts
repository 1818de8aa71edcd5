// The overview cards' query as it was before the daily rollups: spend and tokens summed from the hourly
// rollups alone, in three spend queries and one token query. bench:ledger times it beside getUsageSummary as
// the same-run baseline, and checks that both give the same figures.
import { and, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../lib/db/client";
import { agentMessages, agentRuns, agents, approvals, usageRollupsHourly } from "../lib/db/schema";
import { isNominal } from "../lib/billing/prices";
import { DAY_MS, HOUR_MS, toHourRange, type HourRange } from "../lib/billing/range";
import type { UsageSummary } from "../lib/billing/summary";


const total = (column: unknown) => sql<number>`coalesce(sum(${column}), 0)::float8`.mapWith(Number);
const between = (range: HourRange) => and(gte(usageRollupsHourly.bucket, range.from), lt(usageRollupsHourly.bucket, range.to));

const change = (now: number, before: number) => (before === 0 ? null : (now - before) / before);
const iso = (d: Date) => d.toISOString();
const shift = (d: Date, ms: number) => new Date(d.getTime() + ms);

/**
 * What the overview cards show. Spend and tokens come from the hourly rollups
 * only (never the raw ledger); runs, durations and approvals from their own
 * tables, always within the range (indexed on workspace and time).
 */
/** The cards as the earlier query made them: before the spend card said what prompt caching saved. */
export type BaselineSummary = Omit<UsageSummary, "spend"> & { spend: Omit<NonNullable<UsageSummary["spend"]>, "savedByCaching"> | null };

export async function getUsageSummaryHourly(
  db: Db,
  workspaceId: string,
  input: { from: Date; to: Date; includeSpend: boolean; now?: Date },
): Promise<BaselineSummary> {
  const range = toHourRange(input.from, input.to);
  const now = input.now ?? new Date();
  // Rates are per minute of the range that has happened (a range ending in the future counts up to now).
  const elapsedMinutes = Math.max(1, (Math.min(range.to.getTime(), now.getTime()) - range.from.getTime()) / 60_000);
  const lastHourEnd = new Date(Math.min(range.to.getTime(), now.getTime()));
  const [spend, rollups, runs, hourly, messages, approvalCounts, lastHour] = await Promise.all([
    input.includeSpend ? spendOf(db, workspaceId, range) : Promise.resolve(null),
    db
      .select({ tokens: total(sql`${usageRollupsHourly.inputTokens} + ${usageRollupsHourly.outputTokens}`), calls: total(usageRollupsHourly.calls) })
      .from(usageRollupsHourly)
      .where(and(eq(usageRollupsHourly.workspaceId, workspaceId), between(range))),
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
      })
      .from(approvals)
      .where(and(eq(approvals.workspaceId, workspaceId), inArray(approvals.status, ["pending", "approved", "rejected"]))),
    db
      .select({ n: sql<number>`count(*)::int`.mapWith(Number) })
      .from(agentRuns)
      .where(and(eq(agentRuns.workspaceId, workspaceId), gte(agentRuns.createdAt, new Date(lastHourEnd.getTime() - 3_600_000)), lt(agentRuns.createdAt, lastHourEnd))),
  ]);
  const tokens = rollups[0]?.tokens ?? 0;
  return {
    range: { from: iso(range.from), to: iso(range.to) },
    spend,
    activity: {
      runs: runs.runs,
      toolCalls: runs.toolCalls,
      modelCalls: rollups[0]?.calls ?? 0,
      chatMessages: runs.chatMessages,
      doorCalls: runs.doorCalls,
      agentMessages: messages[0]?.n ?? 0,
      approvalsPending: approvalCounts[0]?.pending ?? 0,
      approvalsDecided: approvalCounts[0]?.decided ?? 0,
      // The former design had no review timing; the benchmark compares the spend and activity reads only.
      decisionP50Ms: null,
      decisionP95Ms: null,
      waitingLong: 0,
      waitingLongAfterMinutes: 15,
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

/**
 * Spend of the range, the 7 and the 30 days up to its end, each against the period of the same length before it:
 * one scan of the rollups from the earliest of those periods (60 days for the cards' "today").
 */
async function spendOf(db: Db, workspaceId: string, range: HourRange): Promise<NonNullable<BaselineSummary["spend"]>> {
  const span = range.to.getTime() - range.from.getTime();
  const range0 = { key: "range" as const, from: range.from, to: range.to, before: shift(range.from, -span) };
  const week = { key: "7d" as const, from: shift(range.to, -7 * DAY_MS), to: range.to, before: shift(range.to, -14 * DAY_MS) };
  const month = { key: "30d" as const, from: shift(range.to, -30 * DAY_MS), to: range.to, before: shift(range.to, -60 * DAY_MS) };
  const windows = [range0, week, month];
  const earliest = new Date(Math.min(...windows.map((w) => w.before.getTime())));
  const sumWhen = (from: Date, to: Date) =>
    sql<number>`coalesce(sum(${usageRollupsHourly.credits}) filter (where ${usageRollupsHourly.bucket} >= ${iso(from)}::timestamptz and ${usageRollupsHourly.bucket} < ${iso(to)}::timestamptz), 0)::float8`.mapWith(
      Number,
    );
  const scope = and(eq(usageRollupsHourly.workspaceId, workspaceId), between({ from: earliest, to: range.to }));
  const agentCredits = total(usageRollupsHourly.credits);
  const [[sums], top, nominal] = await Promise.all([
    db
      .select({
        rangeNow: sumWhen(range0.from, range0.to),
        rangeBefore: sumWhen(range0.before, range0.from),
        weekNow: sumWhen(week.from, week.to),
        weekBefore: sumWhen(week.before, week.from),
        monthNow: sumWhen(month.from, month.to),
        monthBefore: sumWhen(month.before, month.from),
      })
      .from(usageRollupsHourly)
      .where(scope),
    db
      .select({ agentId: usageRollupsHourly.agentId, handle: agents.handle, name: agents.name, credits: agentCredits, calls: total(usageRollupsHourly.calls) })
      .from(usageRollupsHourly)
      .leftJoin(agents, eq(agents.id, usageRollupsHourly.agentId))
      .where(and(eq(usageRollupsHourly.workspaceId, workspaceId), between({ from: week.from, to: range.to })))
      .groupBy(usageRollupsHourly.agentId, agents.handle, agents.name)
      .orderBy(desc(agentCredits), usageRollupsHourly.agentId)
      .limit(5),
    db
      .select({ model: usageRollupsHourly.model, credits: total(usageRollupsHourly.credits) })
      .from(usageRollupsHourly)
      .where(and(eq(usageRollupsHourly.workspaceId, workspaceId), between({ from: month.from, to: range.to })))
      .groupBy(usageRollupsHourly.model),
  ]);
  return {
    periods: [
      [range0, sums?.rangeNow ?? 0, sums?.rangeBefore ?? 0] as const,
      [week, sums?.weekNow ?? 0, sums?.weekBefore ?? 0] as const,
      [month, sums?.monthNow ?? 0, sums?.monthBefore ?? 0] as const,
    ].map(([w, credits, previousCredits]) => ({ key: w.key, from: iso(w.from), to: iso(w.to), credits, previousCredits, change: change(credits, previousCredits) })),
    topAgents: top.filter((t) => t.credits > 0).map((t) => ({ ...t, handle: t.handle ?? null, name: t.name ?? null })),
    nominalCredits: nominal.filter((m) => isNominal(m.model)).reduce((sum, m) => sum + m.credits, 0),
  };
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
