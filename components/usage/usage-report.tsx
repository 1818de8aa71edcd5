"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { useMemo, type ComponentProps } from "react";
import type { UsageGroup } from "@/lib/billing/report";
import { usageReportSchema, type UsageReport as Report } from "@/lib/billing/billing-schemas";
import { CREDITS_PER_USD } from "@/lib/billing/prices";
import { addZonedDays, dayLabel, isoDay, mediumWhen, startOfZonedDay } from "@/lib/client/format-time";
import { rangeParams, readRangeChoice, resolveRangeChoice, type RangePreset } from "@/lib/client/usage-range";
import { ErrorNotice } from "../ui/error-notice";
import { usageKeys } from "@/lib/client/query-keys";
import { useApi, useWorkspace } from "../providers";
import { LazyBox } from "../ui/lazy-box";
import { seriesColors } from "./colors";
import { formatCacheHitRate, formatCount, formatDuration, formatUsd, formatUsdTick } from "./format";
import { reviewsSchema } from "@/lib/billing/usage-schemas";
import type { ChartPoint } from "./usage-charts";

// The charts load after the page (recharts is most of its script), in the same h-64 boxes meanwhile.
const UsageBars = dynamic(() => import("./usage-charts").then((m) => m.UsageBars), { ssr: false, loading: () => <LazyBox label="Loading the chart" /> });

const presets: { id: RangePreset | "custom"; label: string }[] = [
  { id: "today", label: "Today" },
  { id: "7d", label: "7 days" },
  { id: "30d", label: "30 days" },
  { id: "month", label: "This month" },
  { id: "custom", label: "Custom" },
];
const groups: { id: UsageGroup; label: string }[] = [
  { id: "agent", label: "Agent" },
  { id: "model", label: "Model" },
  { id: "source", label: "Source" },
  { id: "mission", label: "Mission" },
  { id: "person", label: "Person" },
];
const OTHER = "__other";

export function UsageReportView() {
  const api = useApi();
  const { slug, timeZone } = useWorkspace();
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const choice = useMemo(() => readRangeChoice(new URLSearchParams(searchParams.toString())), [searchParams]);
  const groupParam = searchParams.get("group");
  const group: UsageGroup = groups.some((g) => g.id === groupParam) ? (groupParam as UsageGroup) : "agent";
  // Presets are resolved when the address changes (and on every refetch below), in the workspace's time zone.
  const resolved = useMemo(() => resolveRangeChoice(choice, new Date(), timeZone), [choice, timeZone]);

  /** Puts a change into the address (replacing, not pushing: the back button leaves the page), keeping other parameters. */
  const navigate = (change: { range?: Record<string, string>; group?: UsageGroup }) => {
    const next = new URLSearchParams(searchParams.toString());
    if (change.range) {
      for (const key of ["range", "from", "to"]) next.delete(key);
      for (const [key, value] of Object.entries(change.range)) next.set(key, value);
    }
    if (change.group) next.set("group", change.group);
    router.replace(`${pathname}?${next.toString()}`, { scroll: false });
  };
  const chooseCustom = () => {
    const today = new Date();
    navigate({ range: rangeParams({ preset: "custom", from: isoDay(new Date(today.getTime() - 14 * 86_400_000), timeZone), to: isoDay(today, timeZone) }) });
  };

  const report = useQuery({
    queryKey: usageKeys.report(slug, choice, group, timeZone),
    queryFn: () => {
      const range = resolveRangeChoice(choice, new Date(), timeZone);
      if (!range.ok) throw new Error(range.problem);
      const params = new URLSearchParams({ from: range.from.toISOString(), to: range.to.toISOString(), group, tz: timeZone });
      return api(`/api/usage?${params.toString()}`, { schema: usageReportSchema });
    },
    enabled: resolved.ok,
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  // A range that cannot be shown shows nothing of the one before: its table, charts and CSV would say another range.
  const data = resolved.ok ? report.data : undefined;
  // The export names the exact hours the table shows, so its rows and totals are the table's.
  const csvHref = data
    ? `/api/usage/export.csv?${new URLSearchParams({ from: data.range.from, to: data.range.to, group: data.group, tz: timeZone, workspace: slug }).toString()}`
    : null;
  const invalid = resolved.ok ? null : resolved;

  return (
    <div className="space-y-6">
      <div className="card flex flex-wrap items-end gap-4 p-4">
        <div role="group" aria-label="Range" className="flex flex-wrap gap-1">
          {presets.map((p) => (
            <button
              key={p.id}
              type="button"
              aria-pressed={choice.preset === p.id}
              onClick={() => (p.id === "custom" ? (choice.preset === "custom" ? undefined : chooseCustom()) : navigate({ range: rangeParams({ preset: p.id }) }))}
              className={`btn border ${choice.preset === p.id ? "border-indigo-600 bg-indigo-600 text-white" : "border-slate-300 bg-surface text-slate-700 hover:bg-slate-100"}`}
            >
              {p.label}
            </button>
          ))}
        </div>
        {choice.preset === "custom" ? (
          <div className="flex flex-wrap items-end gap-2">
            <label className="text-xs text-slate-600">
              From
              <input
                type="date"
                className="input mt-1 py-1"
                value={choice.from}
                aria-invalid={invalid?.field === "from" || undefined}
                aria-describedby={invalid ? "usage-range-problem" : undefined}
                onChange={(e) => navigate({ range: rangeParams({ ...choice, from: e.target.value }) })}
              />
            </label>
            <label className="text-xs text-slate-600">
              To
              <input
                type="date"
                className="input mt-1 py-1"
                value={choice.to}
                aria-invalid={invalid?.field === "to" || undefined}
                aria-describedby={invalid ? "usage-range-problem" : undefined}
                onChange={(e) => navigate({ range: rangeParams({ ...choice, to: e.target.value }) })}
              />
            </label>
          </div>
        ) : null}
        <label className="text-xs text-slate-600">
          Group by
          <select className="input mt-1 w-32 py-1" value={group} onChange={(e) => navigate({ group: e.target.value as UsageGroup })}>
            {groups.map((g) => (
              <option key={g.id} value={g.id}>
                {g.label}
              </option>
            ))}
          </select>
        </label>
        <div className="ml-auto">
          {csvHref ? (
            <a className="btn-secondary" href={csvHref} download>
              Export CSV
            </a>
          ) : (
            <button type="button" className="btn-secondary" disabled title={invalid ? "Fix the range to export it." : "Loading…"}>
              Export CSV
            </button>
          )}
        </div>
        {invalid ? (
          <p id="usage-range-problem" role="alert" className="w-full text-sm text-rose-700" data-testid="usage-range-problem">
            {invalid.problem}
          </p>
        ) : null}
      </div>

      {report.isError && !invalid ? <ErrorNotice error={report.error} fallback="Could not load usage." /> : null}
      {data ? <ReportBody report={data} /> : report.isPending && !invalid ? <p className="text-sm text-slate-500">Loading…</p> : null}
    </div>
  );
}

function ReportBody({ report }: { report: Report }) {
  const { slug, timeZone } = useWorkspace();
  const { chart, keys } = useMemo(() => chartData(report, timeZone), [report, timeZone]);
  const labels = new Map(report.rows.map((r) => [r.key, r.label]));
  const name = (key: string) => (key === OTHER ? "Other" : (labels.get(key) ?? key));
  const colors = useMemo(() => seriesColors(report.rows.filter((r) => keys.includes(r.key)), OTHER), [report.rows, keys]);
  const groupLabel = groups.find((g) => g.id === report.group)!.label;
  // Seconds of agents' computers, in their own column once there are any.
  const compute = report.totals.computeMs > 0;
  const modelCalls = report.totals.calls - report.totals.computeCalls;

  return (
    <>
      <p className="text-sm text-slate-600" data-testid="usage-range">
        From {mediumWhen(report.range.from, { timeZone })} up to {mediumWhen(report.range.to, { timeZone })} · {formatCount(modelCalls)} model{" "}
        {modelCalls === 1 ? "call" : "calls"}
        {compute ? ` · ${formatSeconds(report.totals.computeMs)} of agents' computers` : ""} · {formatUsd(report.totals.credits)}
      </p>
      <div className="grid gap-4 lg:grid-cols-2">
        <UsageChart
          title={`Spend per ${report.granularity}`}
          label="Spend over time"
          chart={chart}
          keys={keys}
          colors={colors}
          name={name}
          field="credits"
          format={(v) => formatUsd(v * CREDITS_PER_USD)}
          formatTick={formatUsdTick}
        />
        <UsageChart
          title={`Tokens per ${report.granularity} (input and output)`}
          label="Tokens over time"
          chart={chart}
          keys={keys}
          colors={colors}
          name={name}
          field="tokens"
          format={formatCount}
        />
      </div>

      <section className="card overflow-x-auto" aria-label="Usage totals">
        <table className="w-full text-sm" data-testid="usage-table">
          <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th className="px-4 py-2">{groupLabel}</th>
              <th className="px-4 py-2 text-right">Spend</th>
              <th className="px-4 py-2 text-right">Calls</th>
              <th className="px-4 py-2 text-right">Input tokens</th>
              <th className="px-4 py-2 text-right">Output tokens</th>
              <th className="px-4 py-2 text-right">Cache read</th>
              <th className="px-4 py-2 text-right">Cache write</th>
              <th className="px-4 py-2 text-right" title="Prompt tokens read from the cache, of all prompt tokens sent">
                Cache hits
              </th>
              {compute ? <th className="px-4 py-2 text-right">Computer time</th> : null}
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {report.rows.length === 0 ? (
              <tr>
                <td colSpan={compute ? 9 : 8} className="px-4 py-6 text-center text-slate-500">
                  No model calls in this range.
                </td>
              </tr>
            ) : (
              report.rows.map((r) => (
                <tr key={r.key} data-testid="usage-row">
                  <td className="px-4 py-2">
                    <span className={report.group === "model" ? "font-mono text-xs" : ""}>{r.label}</span>
                    {report.group === "person" && !r.key ? (
                      <span className="block text-xs text-slate-500">Calls no person started or was acted for, and those of people since removed</span>
                    ) : null}
                    {r.unpricedCalls > 0 ? (
                      <span className="ml-2 rounded bg-amber-50 px-1.5 py-0.5 text-xs text-amber-800" title="Charged at the default price. Set a price in Settings → Billing.">
                        {formatCount(r.unpricedCalls)} without a price
                      </span>
                    ) : null}
                  </td>
                  <td className="px-4 py-2 text-right tabular-nums" data-credits={r.credits}>
                    {formatUsd(r.credits)}
                  </td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.calls)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.inputTokens)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.outputTokens)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.cacheReadTokens)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.cacheWriteTokens)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCacheHitRate(r)}</td>
                  {compute ? <td className="px-4 py-2 text-right tabular-nums">{formatSeconds(r.computeMs)}</td> : null}
                </tr>
              ))
            )}
          </tbody>
          <tfoot className="border-t border-slate-200 bg-slate-50 font-semibold">
            <tr data-testid="usage-total">
              <td className="px-4 py-2">Total</td>
              <td className="px-4 py-2 text-right tabular-nums" data-credits={report.totals.credits}>
                {formatUsd(report.totals.credits)}
              </td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.calls)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.inputTokens)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.outputTokens)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.cacheReadTokens)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.cacheWriteTokens)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCacheHitRate(report.totals)}</td>
              {compute ? <td className="px-4 py-2 text-right tabular-nums">{formatSeconds(report.totals.computeMs)}</td> : null}
            </tr>
          </tfoot>
        </table>
        <p className="border-t border-slate-100 px-4 py-2 text-xs text-slate-500">
          Whole hours from the hourly rollups. The offline model is charged at a nominal price so that spend moves in demos; nothing is
          really spent. Prices and budgets:{" "}
          <Link href={`/w/${slug}/settings/billing`} className="underline">
            Settings → Billing
          </Link>
          .
        </p>
      </section>
      <ReviewsTable from={report.range.from} to={report.range.to} />
    </>
  );
}

/** Who decided requests in the range: how many, how fast, and what share they approved. */
function ReviewsTable({ from, to }: { from: string; to: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const query = useQuery({
    queryKey: usageKeys.reviews(slug, from, to),
    queryFn: () => api(`/api/usage/reviews?${new URLSearchParams({ from, to }).toString()}`, { schema: reviewsSchema }),
  });
  const reviewers = query.data?.reviewers ?? [];
  return (
    <section className="card overflow-x-auto" aria-label="Reviews">
      <h2 className="px-4 pt-3 text-sm font-semibold">Reviews</h2>
      <p className="px-4 text-xs text-slate-600">Requests decided by each person in this range, and how long they waited from asking to deciding.</p>
      {query.isError ? <ErrorNotice error={query.error} fallback="Could not load the reviews." className="m-4" /> : null}
      <table className="mt-2 w-full text-sm" data-testid="reviews-table">
        <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th className="px-4 py-2">Person</th>
            <th className="px-4 py-2 text-right">Decided</th>
            <th className="px-4 py-2 text-right">Median wait</th>
            <th className="px-4 py-2 text-right">Approved</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {query.data && reviewers.length === 0 ? (
            <tr>
              <td colSpan={4} className="px-4 py-6 text-center text-slate-500">
                Nobody decided a request in this range.
              </td>
            </tr>
          ) : (
            reviewers.map((r) => (
              <tr key={r.userId} data-testid="reviews-row">
                <td className="px-4 py-2">{r.name}</td>
                <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.decided)}</td>
                <td className="px-4 py-2 text-right tabular-nums">{formatDuration(r.medianMs)}</td>
                <td className="px-4 py-2 text-right tabular-nums">{Math.round((100 * r.approved) / r.decided)} %</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </section>
  );
}

/** Axis, grid and tooltip colours from the theme's variables, so the charts read in light and dark. */
/** A chart's card: its title and a fixed-height box the bars load into. */
function UsageChart({ title, label, ...bars }: { title: string; label: string } & ComponentProps<typeof UsageBars>) {
  return (
    <section className="card p-4" aria-label={label}>
      <h2 className="mb-2 text-sm font-semibold">{title}</h2>
      <div className="h-64">
        <UsageBars {...bars} />
      </div>
    </section>
  );
}

/**
 * One point per hour or day of the range, days counted in the workspace's
 * time zone as the server counts them; a bucket without usage holds zeros.
 * The five largest groups keep their own colour, the rest are "Other".
 */
/** Milliseconds of computer time as a person reads them: "4.2 s", "3 min 20 s". */
function formatSeconds(ms: number): string {
  if (ms === 0) return "–";
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes} min ${Math.round(seconds % 60)} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function chartData(report: Report, timeZone: string): { chart: ChartPoint[]; keys: string[] } {
  const top = report.rows.slice(0, 5).map((r) => r.key);
  const keys = report.rows.length > 5 ? [...top, OTHER] : top;
  const buckets = new Map<string, ChartPoint>();
  const to = new Date(report.range.to);
  const hourly = report.granularity === "hour";
  let cursor = hourly ? new Date(report.range.from) : startOfZonedDay(new Date(report.range.from), timeZone);
  while (cursor < to) {
    const label = dayLabel(cursor, { timeZone, withHour: hourly });
    const zeros = Object.fromEntries(keys.flatMap((k) => [[`credits:${k}`, 0], [`tokens:${k}`, 0]]));
    buckets.set(cursor.toISOString(), { label, ...zeros });
    cursor = hourly ? new Date(cursor.getTime() + 3_600_000) : addZonedDays(cursor, 1, timeZone);
  }
  for (const point of report.series) {
    const bucket = buckets.get(new Date(point.at).toISOString());
    if (!bucket) continue;
    const key = top.includes(point.key) ? point.key : OTHER;
    bucket[`credits:${key}`] = Number(bucket[`credits:${key}`] ?? 0) + point.credits / CREDITS_PER_USD;
    bucket[`tokens:${key}`] = Number(bucket[`tokens:${key}`] ?? 0) + point.tokens;
  }
  return { chart: [...buckets.values()], keys };
}
