"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "../ui/toaster";
import { ErrorNotice } from "../ui/error-notice";
import { stacked, stackedCell } from "../ui/stacked-table";
import { useState } from "react";
import type { BudgetLine, BudgetState } from "@/lib/billing/budgets";
import { budgetOverviewSchema, type BudgetOverview } from "@/lib/billing/usage-schemas";
import { useApi, useWorkspace } from "../providers";
import { billingKeys } from "@/lib/client/query-keys";
import { budgetStatus, creditsToUsdInput, formatUsd, usdInputToCredits } from "../usage/format";

/** The largest monthly budget the server takes, in credits. */
const MAX_BUDGET_CREDITS = 1e15;

const stateStyles: Record<BudgetState, string> = {
  none: "bg-slate-100 text-slate-600",
  ok: "bg-emerald-50 text-emerald-700",
  warning: "bg-amber-50 text-amber-800",
  exceeded: "bg-rose-50 text-rose-700",
};

export function BudgetsPanel({ canEdit }: { canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const query = useQuery({ queryKey: billingKeys.budgets(slug), queryFn: () => api("/api/budgets", { schema: budgetOverviewSchema }) });
  if (!query.data) return <p className="text-sm text-slate-500">{query.isError ? "Could not load the budgets." : "Loading budgets…"}</p>;
  // A new month (or a new agent) starts a fresh draft; spend figures refresh underneath the draft.
  return <BudgetsEditor key={`${query.data.month.start}:${query.data.agents.length}`} overview={query.data} canEdit={canEdit} />;
}

function BudgetsEditor({ overview, canEdit }: { overview: BudgetOverview; canEdit: boolean }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => ({
    workspace: creditsToUsdInput(overview.workspace.budgetCredits),
    agents: Object.fromEntries(overview.agents.map((a) => [a.agentId!, creditsToUsdInput(a.budgetCredits)])),
    runCaps: Object.fromEntries(overview.agents.map((a) => [a.agentId!, creditsToUsdInput(a.runCapCredits ?? null)])),
  }));
  const [invalid, setInvalid] = useState<string | null>(null);
  /** Budgets set to $0 by this save, waiting for the manager to confirm that they mean to stop those runs. */
  const [zeroes, setZeroes] = useState<{ names: string[]; body: unknown } | null>(null);
  const save = useMutation({
    mutationFn: (body: unknown) => api("/api/budgets", { method: "PUT", body, schema: budgetOverviewSchema }),
    onSuccess: (data) => {
      queryClient.setQueryData(billingKeys.budgets(slug), data);
      toast.success("Budgets saved. They apply from the next model call.");
    },
  });

  const submit = () => {
    const workspace = usdInputToCredits(draft.workspace);
    const agents = overview.agents.map((a) => ({
      agentId: a.agentId!,
      monthlyBudgetCredits: usdInputToCredits(draft.agents[a.agentId!] ?? ""),
      runCapCredits: usdInputToCredits(draft.runCaps[a.agentId!] ?? ""),
    }));
    if (Number.isNaN(workspace) || agents.some((a) => Number.isNaN(a.monthlyBudgetCredits) || Number.isNaN(a.runCapCredits))) {
      setInvalid("Budgets and caps are amounts in US dollars (or empty for none).");
      return;
    }
    // A run at its cap asks to spend as much again: a cap of $0 would ask before every call, and add nothing.
    if (agents.some((a) => a.runCapCredits === 0)) {
      setInvalid("A cap per run must be more than $0. To have none, leave the field empty.");
      return;
    }
    if ([workspace, ...agents.flatMap((a) => [a.monthlyBudgetCredits, a.runCapCredits])].some((c) => c !== null && c > MAX_BUDGET_CREDITS)) {
      setInvalid(`A budget can be at most ${formatUsd(MAX_BUDGET_CREDITS)}.`);
      return;
    }
    setInvalid(null);
    // A budget of $0 (or one that rounds to it) stops every run it covers: many would read 0 as "no limit", so a new
    // $0 is only saved once the manager has confirmed it.
    const names = [
      ...(workspace === 0 && overview.workspace.budgetCredits !== 0 ? ["the whole workspace"] : []),
      ...overview.agents.filter((a, i) => agents[i]!.monthlyBudgetCredits === 0 && a.budgetCredits !== 0).map((a) => `@${a.handle}`),
    ];
    const body = { workspace, agents };
    if (names.length > 0) {
      setZeroes({ names, body });
      return;
    }
    save.mutate(body);
  };

  const spentLabel = `Spent in ${overview.month.label}`;
  const row = (
    line: BudgetLine,
    label: React.ReactNode,
    value: string,
    onChange: (v: string) => void,
    inputLabel: string,
    runCap?: { value: string; onChange: (v: string) => void; label: string },
  ) => {
    const pct = line.budgetCredits ? Math.min(100, (line.spentCredits * 100) / line.budgetCredits) : 0;
    const style = stateStyles[line.state];
    return (
      <tr key={line.scope} className={stacked.row} data-testid={`budget-${line.agentId ? line.handle : "workspace"}`}>
        <td className={stacked.title}>{label}</td>
        <td data-label={spentLabel} className={stackedCell()}>
          <div>
            <div className="tabular-nums">{formatUsd(line.spentCredits)}</div>
            {line.budgetCredits !== null ? (
              <div className="mt-1 h-1.5 w-32 rounded bg-slate-100" aria-hidden>
                <div className={`h-1.5 rounded ${line.state === "exceeded" ? "bg-rose-500" : line.state === "warning" ? "bg-amber-500" : "bg-emerald-500"}`} style={{ width: `${pct}%` }} />
              </div>
            ) : null}
          </div>
        </td>
        <td data-label="Monthly budget" className={stackedCell()}>
          <div className="flex items-center gap-1">
            <span className="text-slate-500">$</span>
            <input
              className="input w-32 py-1 text-right tabular-nums disabled:bg-slate-50 disabled:text-slate-600"
              inputMode="decimal"
              aria-label={inputLabel}
              placeholder="none"
              disabled={!canEdit}
              value={value}
              onChange={(e) => onChange(e.target.value)}
            />
          </div>
        </td>
        <td data-label="Cap per run" className={stackedCell()}>
          {runCap ? (
            <div className="flex items-center gap-1">
              <span className="text-slate-500">$</span>
              <input
                className="input w-24 py-1 text-right tabular-nums disabled:bg-slate-50 disabled:text-slate-600"
                inputMode="decimal"
                aria-label={runCap.label}
                placeholder="none"
                disabled={!canEdit}
                value={runCap.value}
                onChange={(e) => runCap.onChange(e.target.value)}
              />
            </div>
          ) : (
            <span className="text-xs text-slate-500">Set per agent</span>
          )}
        </td>
        <td data-label="Status" className={stackedCell()}>
          <span className={`rounded px-2 py-0.5 text-xs font-medium ${style}`} data-testid="budget-status">
            {budgetStatus(line.spentCredits, line.budgetCredits)}
          </span>
        </td>
      </tr>
    );
  };

  return (
    <form
      className="card overflow-x-auto"
      aria-label="Budgets"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <table className={stacked.table}>
        <thead className={stacked.head}>
          <tr>
            <th className="px-4 py-2">Scope</th>
            <th className="px-4 py-2">{spentLabel}</th>
            <th className="px-4 py-2">Monthly budget</th>
            <th className="px-4 py-2">Cap per run</th>
            <th className="px-4 py-2">Status</th>
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {row(overview.workspace, <span className="font-medium">The whole workspace</span>, draft.workspace, (v) => setDraft((d) => ({ ...d, workspace: v })), "Workspace monthly budget in US dollars")}
          {overview.agents.map((a) =>
            row(
              a,
              <span>
                {a.name} <span className="font-mono text-xs text-slate-500">@{a.handle}</span>
              </span>,
              draft.agents[a.agentId!] ?? "",
              (v) => setDraft((d) => ({ ...d, agents: { ...d.agents, [a.agentId!]: v } })),
              `Monthly budget of @${a.handle} in US dollars`,
              {
                value: draft.runCaps[a.agentId!] ?? "",
                onChange: (v) => setDraft((d) => ({ ...d, runCaps: { ...d.runCaps, [a.agentId!]: v } })),
                label: `Cap per run of @${a.handle} in US dollars`,
              },
            ),
          )}
        </tbody>
      </table>
      <div className="flex flex-wrap items-center gap-3 border-t border-slate-100 px-4 py-3">
        <p className="min-w-60 flex-1 text-xs text-slate-500">
          Checked before every model call, command and page: at 80 % a warning shows on the overview and the usage page; at 100 % runs
          stop, saying the budget is spent, until it is raised or the month (UTC) ends. The last call before the cap may overshoot it by that
          call&apos;s cost. A cap per run does not stop a run: when one run of the agent has spent it, the run waits and asks managers
          and owners in the inbox whether it may spend as much again.
        </p>
        {canEdit ? (
          <button className="btn-primary" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save budgets"}
          </button>
        ) : (
          <span className="text-xs text-slate-500">Managers and owners change budgets.</span>
        )}
      </div>
      {zeroes ? (
        <div role="alert" className="space-y-2 border-t border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900" data-testid="zero-budget">
          <p>
            A budget of $0 stops every run of {zeroes.names.join(", ")} before its next model call. To have no limit, leave the field empty.
          </p>
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              className="btn-danger"
              onClick={() => {
                save.mutate(zeroes.body);
                setZeroes(null);
              }}
            >
              Save with $0
            </button>
            <button type="button" className="btn-secondary" onClick={() => setZeroes(null)}>
              Keep editing
            </button>
          </div>
        </div>
      ) : null}
      {invalid || save.isError ? (
        invalid ? (
          <p role="alert" className="border-t border-rose-100 bg-rose-50 px-4 py-2 text-sm text-rose-700">
            {invalid}
          </p>
        ) : (
          <ErrorNotice className="border-t border-rose-100 bg-rose-50 px-4 py-2" error={save.error} fallback="Could not save the budgets." />
        )
      ) : null}
    </form>
  );
}
