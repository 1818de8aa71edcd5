"use client";

import { useQuery } from "@tanstack/react-query";
import { reconciliationViewSchema } from "@/lib/billing/billing-schemas";
import { usageKeys } from "@/lib/client/query-keys";
import { useApi, useWorkspace } from "../providers";
import { formatCount, formatUsd } from "../usage/format";
import { Time } from "../ui/time";
import { stacked, stackedCell } from "../ui/stacked-table";

/** What the periodic reconciliation of runs against the ledger found in this workspace. */
export function ReconciliationPanel() {
  const api = useApi();
  const { slug } = useWorkspace();
  const query = useQuery({ queryKey: usageKeys.reconciliation(slug), queryFn: () => api("/api/usage/reconciliation", { schema: reconciliationViewSchema }), refetchInterval: 60_000 });
  const data = query.data;
  return (
    <section className="card overflow-x-auto" aria-label="Reconciliation findings">
      <div className="flex flex-wrap items-baseline justify-between gap-2 px-4 py-3">
        <p className="text-sm text-slate-600">
          Every minute, each finished run&apos;s token totals are compared with its ledger rows. A shortfall is filled with one explicit row;
          a ledger that holds more than the run is flagged here.
        </p>
        <span className="text-xs text-slate-500" data-testid="reconciliation-last-run">
          {data ? (data.lastRunAt ? <>Last checked <Time at={data.lastRunAt} /></> : "Not run yet") : query.isError ? "Could not load." : "Loading…"}
        </span>
      </div>
      {data && data.findings.length === 0 ? (
        <p className="border-t border-slate-100 px-4 py-4 text-sm text-slate-600">No gaps found: every finished run matches the ledger.</p>
      ) : null}
      {data && data.findings.length > 0 ? (
        <table className={`${stacked.table} border-t border-slate-100`}>
          <thead className={stacked.head}>
            <tr>
              <th className="px-4 py-2">Found</th>
              <th className="px-4 py-2">Run</th>
              <th className="px-4 py-2">Outcome</th>
              <th className="px-4 py-2 text-right">Run tokens (in / out)</th>
              <th className="px-4 py-2 text-right">Ledger tokens (in / out)</th>
              <th className="px-4 py-2 text-right">Filled</th>
            </tr>
          </thead>
          <tbody className={stacked.body}>
            {data.findings.map((f) => (
              <tr key={f.id} className={stacked.row} data-testid="reconciliation-finding">
                <td data-label="Found" className={stackedCell({ className: "whitespace-nowrap text-slate-600" })}>
                  <Time at={f.createdAt} />
                </td>
                <td data-label="Run" className={stackedCell()}>
                  <div>
                    <div className="font-mono text-xs">{f.runId.slice(0, 8)}</div>
                    <div className="text-xs text-slate-500">
                      {f.agentHandle ? `@${f.agentHandle}` : "deleted agent"} · {f.model}
                    </div>
                  </div>
                </td>
                <td data-label="Outcome" className={stackedCell()}>
                  <div>
                    <span className={`rounded px-2 py-0.5 text-xs font-medium ${f.outcome === "filled" ? "bg-sky-50 text-sky-700" : "bg-rose-50 text-rose-700"}`}>
                      {f.outcome === "filled" ? "Gap filled" : "Flagged"}
                    </span>
                    <div className="mt-1 max-w-xs text-xs text-slate-500">{f.reason}</div>
                  </div>
                </td>
                <td data-label="Run tokens (in / out)" className={stackedCell({ align: "right", className: "tabular-nums" })}>
                  {formatCount(f.runInputTokens)} / {formatCount(f.runOutputTokens)}
                </td>
                <td data-label="Ledger tokens (in / out)" className={stackedCell({ align: "right", className: "tabular-nums" })}>
                  {formatCount(f.ledgerInputTokens)} / {formatCount(f.ledgerOutputTokens)}
                </td>
                <td data-label="Filled" className={stackedCell({ align: "right", className: "tabular-nums" })}>
                  {f.outcome === "filled" ? formatUsd(f.filledCredits) : "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
