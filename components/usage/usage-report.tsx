"use client";

import Link from "next/link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import dynamic from "next/dynamic";
import type { UsageGroup, UsageReport as Report } from "@/lib/billing/report";
import { CREDITS_PER_USD } from "@/lib/billing/prices";
import { errorMessage } from "@/lib/errors";
import { useApi, useWorkspace } from "../providers";
import { LazyBox } from "../ui/lazy-box";
import { formatCount, formatUsd } from "./format";

// The charts load after the page (recharts is most of its script), in the same h-64 boxes meanwhile.
const SpendChart = dynamic(() => import("./usage-charts").then((m) => m.SpendChart), { ssr: false, loading: () => <LazyBox label="Loading the spend chart" /> });
const TokensChart = dynamic(() => import("./usage-charts").then((m) => m.TokensChart), { ssr: false, loading: () => <LazyBox label="Loading the tokens chart" /> });

type Preset = "today" | "7d" | "30d" | "month" | "custom";

const presets: { id: Preset; label: string }[] = [
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
];
const OTHER = "__other";
const when = (d: Date) => d.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });

const isoDay = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
const localDay = (value: string) => {
  const [y, m, d] = value.split("-").map(Number);
  return new Date(y!, m! - 1, d!);
};

/** The range a preset means right now, in the browser's time zone; custom days are whole local days, `to` inclusive. */
function rangeOf(preset: Preset, custom: { from: string; to: string }): { from: Date; to: Date } | null {
  const now = new Date();
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  if (preset === "today") return { from: midnight, to: now };
  if (preset === "7d") return { from: new Date(now.getTime() - 7 * 86_400_000), to: now };
  if (preset === "30d") return { from: new Date(now.getTime() - 30 * 86_400_000), to: now };
  if (preset === "month") return { from: new Date(now.getFullYear(), now.getMonth(), 1), to: now };
  if (!custom.from || !custom.to) return null;
  const from = localDay(custom.from);
  const to = localDay(custom.to);
  to.setDate(to.getDate() + 1);
  return to > from ? { from, to } : null;
}

export function UsageReportView() {
  const api = useApi();
  const { slug } = useWorkspace();
  const [preset, setPreset] = useState<Preset>("7d");
  const [custom, setCustom] = useState(() => ({ from: isoDay(new Date(Date.now() - 14 * 86_400_000)), to: isoDay(new Date()) }));
  const [group, setGroup] = useState<UsageGroup>("agent");
  const tz = useMemo(() => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC", []);
  const customValid = preset !== "custom" || rangeOf("custom", custom) !== null;

  const report = useQuery({
    queryKey: ["usage-report", slug, preset, preset === "custom" ? custom : null, group, tz],
    queryFn: () => {
      const range = rangeOf(preset, custom)!;
      const params = new URLSearchParams({ from: range.from.toISOString(), to: range.to.toISOString(), group, tz });
      return api<Report>(`/api/usage?${params.toString()}`);
    },
    enabled: customValid,
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  const data = report.data;
  // The export names the exact hours the table shows, so its rows and totals are the table's.
  const csvHref = data
    ? `/api/usage/export.csv?${new URLSearchParams({ from: data.range.from, to: data.range.to, group: data.group, tz, workspace: slug }).toString()}`
    : null;

  return (
    <div className="space-y-6">
      <div className="card flex flex-wrap items-end gap-4 p-4">
        <div role="group" aria-label="Range" className="flex flex-wrap gap-1">
          {presets.map((p) => (
            <button
              key={p.id}
              type="button"
              aria-pressed={preset === p.id}
              onClick={() => setPreset(p.id)}
              className={`btn border ${preset === p.id ? "border-indigo-600 bg-indigo-600 text-white" : "border-slate-300 bg-surface text-slate-700 hover:bg-slate-100"}`}
            >
              {p.label}
            </button>
          ))}
        </div>
        {preset === "custom" ? (
          <div className="flex items-end gap-2">
            <label className="text-xs text-slate-600">
              From
              <input type="date" className="input mt-1 py-1" value={custom.from} max={custom.to} onChange={(e) => setCustom((c) => ({ ...c, from: e.target.value }))} />
            </label>
            <label className="text-xs text-slate-600">
              To
              <input type="date" className="input mt-1 py-1" value={custom.to} min={custom.from} onChange={(e) => setCustom((c) => ({ ...c, to: e.target.value }))} />
            </label>
          </div>
        ) : null}
        <label className="text-xs text-slate-600">
          Group by
          <select className="input mt-1 w-32 py-1" value={group} onChange={(e) => setGroup(e.target.value as UsageGroup)}>
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
          ) : null}
        </div>
      </div>

      {!customValid ? <p className="text-sm text-rose-700">Choose a start day on or before the end day.</p> : null}
      {report.isError ? (
        <p role="alert" className="text-sm text-rose-700">
          {errorMessage(report.error, "Could not load usage.")}
        </p>
      ) : null}
      {data ? <ReportBody report={data} /> : report.isPending && customValid ? <p className="text-sm text-slate-500">Loading…</p> : null}
    </div>
  );
}

function ReportBody({ report }: { report: Report }) {
  const { slug } = useWorkspace();
  const { chart, keys } = useMemo(() => chartData(report), [report]);
  const labels = new Map(report.rows.map((r) => [r.key, r.label]));
  const name = (key: string) => (key === OTHER ? "Other" : (labels.get(key) ?? key));
  const groupLabel = groups.find((g) => g.id === report.group)!.label;
  const from = new Date(report.range.from);
  const to = new Date(report.range.to);

  return (
    <>
      <p className="text-sm text-slate-600" data-testid="usage-range">
        From {when(from)} up to {when(to)} · {formatCount(report.totals.calls)} model {report.totals.calls === 1 ? "call" : "calls"} · {formatUsd(report.totals.credits)}
      </p>
      <div className="grid gap-4 lg:grid-cols-2">
        <section className="card p-4" aria-label="Spend over time">
          <h2 className="mb-2 text-sm font-semibold">Spend per {report.granularity}</h2>
          <div className="h-64">
            <SpendChart chart={chart} keys={keys} name={name} />
          </div>
        </section>
        <section className="card p-4" aria-label="Tokens over time">
          <h2 className="mb-2 text-sm font-semibold">Tokens per {report.granularity} (input and output)</h2>
          <div className="h-64">
            <TokensChart chart={chart} />
          </div>
        </section>
      </div>

      <section className="card overflow-x-auto" aria-label="Usage totals">
        <table className="w-full text-sm" data-testid="usage-table">
          <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th className="px-4 py-2">{groupLabel}</th>
              <th className="px-4 py-2 text-right">Calls</th>
              <th className="px-4 py-2 text-right">Input tokens</th>
              <th className="px-4 py-2 text-right">Output tokens</th>
              <th className="px-4 py-2 text-right">Cache read</th>
              <th className="px-4 py-2 text-right">Cache write</th>
              <th className="px-4 py-2 text-right">Spend</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {report.rows.length === 0 ? (
              <tr>
                <td colSpan={7} className="px-4 py-6 text-center text-slate-500">
                  No model calls in this range.
                </td>
              </tr>
            ) : (
              report.rows.map((r) => (
                <tr key={r.key} data-testid="usage-row">
                  <td className="px-4 py-2">
                    <span className={report.group === "model" ? "font-mono text-xs" : ""}>{r.label}</span>
                    {r.unpricedCalls > 0 ? (
                      <span className="ml-2 rounded bg-amber-50 px-1.5 py-0.5 text-xs text-amber-800" title="Charged at the default price. Set a price in Settings → Billing.">
                        {formatCount(r.unpricedCalls)} without a price
                      </span>
                    ) : null}
                  </td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.calls)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.inputTokens)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.outputTokens)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.cacheReadTokens)}</td>
                  <td className="px-4 py-2 text-right tabular-nums">{formatCount(r.cacheWriteTokens)}</td>
                  <td className="px-4 py-2 text-right tabular-nums" data-credits={r.credits}>
                    {formatUsd(r.credits)}
                  </td>
                </tr>
              ))
            )}
          </tbody>
          <tfoot className="border-t border-slate-200 bg-slate-50 font-semibold">
            <tr data-testid="usage-total">
              <td className="px-4 py-2">Total</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.calls)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.inputTokens)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.outputTokens)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.cacheReadTokens)}</td>
              <td className="px-4 py-2 text-right tabular-nums">{formatCount(report.totals.cacheWriteTokens)}</td>
              <td className="px-4 py-2 text-right tabular-nums" data-credits={report.totals.credits}>
                {formatUsd(report.totals.credits)}
              </td>
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
    </>
  );
}

/** One point per hour or day of the range (zeros included); the five largest groups keep their own colour, the rest are "Other". */
function chartData(report: Report): { chart: Record<string, number | string>[]; keys: string[] } {
  const top = report.rows.slice(0, 5).map((r) => r.key);
  const keys = report.rows.length > 5 ? [...top, OTHER] : top;
  const buckets = new Map<string, Record<string, number | string>>();
  const from = new Date(report.range.from);
  const to = new Date(report.range.to);
  const cursor = new Date(from);
  if (report.granularity === "day") cursor.setHours(0, 0, 0, 0);
  while (cursor < to) {
    const label =
      report.granularity === "hour"
        ? cursor.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit" })
        : cursor.toLocaleDateString([], { month: "short", day: "numeric" });
    buckets.set(cursor.toISOString(), { label, tokens: 0, ...Object.fromEntries(keys.map((k) => [k, 0])) });
    if (report.granularity === "hour") cursor.setTime(cursor.getTime() + 3_600_000);
    else cursor.setDate(cursor.getDate() + 1);
  }
  for (const point of report.series) {
    const bucket = buckets.get(new Date(point.at).toISOString());
    if (!bucket) continue;
    const key = top.includes(point.key) ? point.key : OTHER;
    bucket[key] = Number(bucket[key] ?? 0) + point.credits / CREDITS_PER_USD;
    bucket.tokens = Number(bucket.tokens) + point.tokens;
  }
  return { chart: [...buckets.values()], keys };
}
