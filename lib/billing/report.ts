import { and, eq, gte, lt, ne, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { agents, usageRollupsHourly } from "../db/schema";
import { countDoorCalls, doorActivityRow } from "./door-activity";
import { ledgerUsage, missionLabels, personLabels } from "./ledger-usage";
import { lookupComputePrice } from "./price-book";
import { isNominal } from "./prices";
import { DAY_MS, rangeFields, resolveRange, timeZoneSchema, toHourRange } from "./range";

export const usageGroups = ["agent", "model", "source", "mission", "person"] as const;
export type UsageGroup = (typeof usageGroups)[number];

export const reportQuerySchema = z
  .object({ ...rangeFields, group: z.enum(usageGroups).default("agent"), tz: timeZoneSchema.default("UTC") })
  .transform((q) => ({ ...resolveRange(q, 7 * DAY_MS), group: q.group, tz: q.tz }));
export type ReportQuery = z.infer<typeof reportQuerySchema>;

export interface UsageTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  credits: number;
  unpricedCalls: number;
  /** Milliseconds of agents' computers (compute rows). */
  computeMs: number;
  /** Of `calls`, the steps of agents' computers (compute rows) rather than model calls. */
  computeCalls: number;
}

export interface UsageRow extends UsageTotals {
  key: string;
  label: string;
  /** Spend on the offline model: a nominal price, nothing really spent. */
  nominal: boolean;
  /** Grouped by agent: the agent's own colour, which the charts draw it in. */
  color?: string;
}

export interface UsageReport {
  range: { from: string; to: string };
  group: UsageGroup;
  granularity: "hour" | "day";
  rows: UsageRow[];
  totals: UsageTotals;
  /** Credits and tokens per hour or per day (in the given time zone) and per row key. */
  series: { at: string; key: string; credits: number; tokens: number }[];
}

const sum = (column: unknown) => sql<number>`coalesce(sum(${column}), 0)::float8`.mapWith(Number);

/** Grouped by source: agent runs by what started them (read from the ledger), the other sources as they are. */
const sourceLabels: Record<string, string> = {
  "run:chat": "Chat turns",
  "run:agent_message": "Agent-to-agent messages",
  "run:room_post": "Room posts",
  "run:mission": "Mission turns",
  "run:door": "Calls through the door",
  "run:gone": "Runs since deleted",
  mission_run: "Mission turns",
  judge: "The judge of comparisons",
  governor: "The governor, judging requests",
  door: "Calls through the door",
  compute: "Agents' computers (commands and browsers)",
};

/** Grouped by agent: spend of no agent, by what it was for. */
const noAgentLabels: Record<string, string> = {
  "none:judge": "The judge of comparisons",
  "none:governor": "The governor, judging requests",
};

/** What a compute row's `model` names, as the model grouping shows it. */
const computeLabels: Record<string, string> = { sandbox: "Commands in agents' computers", browser: "Agents' browsers" };

function groupKey(group: UsageGroup): SQL<string> {
  // Spend of no agent is told apart by what it was for (the judge of a comparison, say).
  if (group === "agent") return sql<string>`coalesce(${usageRollupsHourly.agentId}::text, 'none:' || ${usageRollupsHourly.sourceKind}::text)`;
  if (group === "model") return sql<string>`${usageRollupsHourly.model}`;
  // Rollups do not carry the mission: they give the spend outside missions; missions' own come from the ledger.
  if (group === "mission") return sql<string>`''`;
  // Nor the person: that grouping reads the ledger alone, and this key is never asked for.
  if (group === "person") return sql<string>`''`;
  return sql<string>`${usageRollupsHourly.sourceKind}::text`;
}

/**
 * The usage page and its CSV: totals per agent, model, source, mission or
 * person over a range of whole hours, and a time series (hourly up to three
 * days, else daily in the viewer's time zone). Read from the hourly rollups,
 * and from the ledger's rows over the same whole hours for what the rollups
 * do not carry: by mission, mission turns by mission; by source, agent runs
 * by what started them (plus the door's tool calls, no spend); by person,
 * everything. The totals are the same under every grouping.
 */
export async function getUsageReport(db: Db, workspaceId: string, query: ReportQuery): Promise<UsageReport> {
  const range = toHourRange(query.from, query.to);
  const granularity = range.to.getTime() - range.from.getTime() <= 3 * DAY_MS ? "hour" : "day";
  const key = groupKey(query.group);
  // What the ledger gives instead of the rollups: mission turns by mission, agent runs by what started them, and
  // everything by person.
  const fromLedger =
    query.group === "mission"
      ? ledgerUsage(db, workspaceId, range, granularity, query.tz, "mission", "mission_run")
      : query.group === "source"
        ? ledgerUsage(db, workspaceId, range, granularity, query.tz, "run_trigger", "run")
        : query.group === "person"
          ? ledgerUsage(db, workspaceId, range, granularity, query.tz, "person")
          : Promise.resolve(null);
  const where = and(
    eq(usageRollupsHourly.workspaceId, workspaceId),
    gte(usageRollupsHourly.bucket, range.from),
    lt(usageRollupsHourly.bucket, range.to),
    query.group === "mission" ? ne(usageRollupsHourly.sourceKind, "mission_run") : undefined,
    query.group === "source" ? ne(usageRollupsHourly.sourceKind, "run") : undefined,
    query.group === "person" ? sql`false` : undefined,
  );
  const at =
    granularity === "hour"
      ? sql<string>`${usageRollupsHourly.bucket}`
      : sql<string>`date_trunc('day', ${usageRollupsHourly.bucket}, ${query.tz})`;

  const [rollupGroups, rollupSeries, names, ledger] = await Promise.all([
    db
      .select({
        key,
        calls: sum(usageRollupsHourly.calls),
        inputTokens: sum(usageRollupsHourly.inputTokens),
        outputTokens: sum(usageRollupsHourly.outputTokens),
        cacheReadTokens: sum(usageRollupsHourly.cacheReadTokens),
        cacheWriteTokens: sum(usageRollupsHourly.cacheWriteTokens),
        credits: sum(usageRollupsHourly.credits),
        unpricedCalls: sum(usageRollupsHourly.unpricedCalls),
        computeMs: sum(usageRollupsHourly.computeMs),
        computeCalls: sum(sql`case when ${usageRollupsHourly.sourceKind} = 'compute' then ${usageRollupsHourly.calls} else 0 end`),
      })
      .from(usageRollupsHourly)
      .where(where)
      .groupBy(sql`1`),
    db
      .select({
        at: sql<string>`to_char((${at}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.000"Z"')`,
        key,
        credits: sum(usageRollupsHourly.credits),
        tokens: sum(sql`${usageRollupsHourly.inputTokens} + ${usageRollupsHourly.outputTokens}`),
      })
      .from(usageRollupsHourly)
      .where(where)
      .groupBy(sql`1`, sql`2`)
      .orderBy(sql`1`),
    query.group === "agent"
      ? db.select({ id: agents.id, handle: agents.handle, name: agents.name, color: agents.color }).from(agents).where(eq(agents.workspaceId, workspaceId))
      : Promise.resolve([]),
    fromLedger,
  ]);
  const grouped = [...rollupGroups.filter((g) => !ledger || g.calls > 0), ...(ledger?.grouped ?? [])];
  const series = ledger ? [...rollupSeries, ...ledger.series].sort((a, b) => a.at.localeCompare(b.at)) : rollupSeries;
  const ledgerKeys = (ledger?.grouped ?? []).map((g) => g.key);
  const [missionNames, personNames] = await Promise.all([
    query.group === "mission" ? missionLabels(db, workspaceId, ledgerKeys) : new Map<string, string>(),
    query.group === "person" ? personLabels(db, ledgerKeys) : new Map<string, string>(),
  ]);

  const agentLabels = new Map(names.map((a) => [a.id, `${a.name} (@${a.handle})`]));
  const agentColors = new Map(names.map((a) => [a.id, a.color]));
  // The built-in compute price is nominal too (the computers run on this server): said so where compute has its row.
  const computeNominal = (query.group === "source" || query.group === "model") && (await lookupComputePrice(db, workspaceId)).source === "built-in";
  const nominalRow = (k: string) =>
    (query.group === "model" && (isNominal(k) || (k in computeLabels && computeNominal))) || (query.group === "source" && k === "compute" && computeNominal);
  const label = (k: string) => {
    const named =
      query.group === "agent"
        ? k.startsWith("none:")
          ? (noAgentLabels[k] ?? "No agent")
          : (agentLabels.get(k) ?? "Deleted agent")
        : query.group === "source"
          ? (sourceLabels[k] ?? k)
          : query.group === "mission"
            ? k
              ? (missionNames.get(k) ?? "Deleted mission")
              : "Outside missions"
            : query.group === "person"
              ? k
                ? (personNames.get(k) ?? "A person no longer here")
                : "No person: the workspace itself, or someone removed"
              : (computeLabels[k] ?? k);
    return nominalRow(k) ? `${named} (nominal price)` : named;
  };
  const rows = grouped
    .map((g) => ({
      ...g,
      label: label(g.key),
      nominal: nominalRow(g.key),
      ...(query.group === "agent" && agentColors.has(g.key) ? { color: agentColors.get(g.key) } : {}),
    }))
    .sort((a, b) => b.credits - a.credits || a.label.localeCompare(b.label));
  const totals = rows.reduce<UsageTotals>(
    (t, r) => ({
      calls: t.calls + r.calls,
      inputTokens: t.inputTokens + r.inputTokens,
      outputTokens: t.outputTokens + r.outputTokens,
      cacheReadTokens: t.cacheReadTokens + r.cacheReadTokens,
      cacheWriteTokens: t.cacheWriteTokens + r.cacheWriteTokens,
      credits: t.credits + r.credits,
      unpricedCalls: t.unpricedCalls + r.unpricedCalls,
      computeMs: t.computeMs + r.computeMs,
      computeCalls: t.computeCalls + r.computeCalls,
    }),
    { calls: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, credits: 0, unpricedCalls: 0, computeMs: 0, computeCalls: 0 },
  );
  // Grouped by source, door activity has its row too: tool calls without spend, outside the ledger's totals.
  if (query.group === "source") {
    const doorCalls = await countDoorCalls(db, workspaceId, range);
    const charged = rows.find((r) => r.key === "door");
    if (charged) charged.calls += doorCalls;
    else if (doorCalls > 0) rows.push(doorActivityRow(doorCalls));
  }
  return { range: { from: range.from.toISOString(), to: range.to.toISOString() }, group: query.group, granularity, rows, totals, series };
}

/** A cell that a spreadsheet would read as a formula is prefixed with an apostrophe; quotes are doubled. */
function csvCell(value: string | number): string {
  if (typeof value === "number") return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvColumns = ["group", "key", "label", "calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "unpriced_calls", "credits", "usd", "compute_seconds"] as const;

/** The report's table as CSV: the same rows, then one `total` row. Credits are exact integers; `usd` is credits / 1,000,000. */
export function reportToCsv(report: UsageReport): string {
  const line = (group: string, key: string, label: string, t: UsageTotals) =>
    [
      group,
      key,
      label,
      t.calls,
      t.inputTokens,
      t.outputTokens,
      t.cacheReadTokens,
      t.cacheWriteTokens,
      t.unpricedCalls,
      t.credits,
      (t.credits / 1_000_000).toFixed(6),
      (t.computeMs / 1000).toFixed(3),
    ]
      .map(csvCell)
      .join(",");
  return [
    csvColumns.join(","),
    ...report.rows.map((r) => line(report.group, r.key, r.label, r)),
    line("total", "", `Total ${report.range.from} to ${report.range.to}`, report.totals),
  ].join("\r\n") + "\r\n";
}
