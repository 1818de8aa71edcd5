"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import type { BudgetLine } from "@/lib/billing/budgets";
import { budgetOverviewSchema } from "@/lib/billing/usage-schemas";
import { billingKeys } from "@/lib/client/query-keys";
import { useApi, useWorkspace } from "../providers";
import { budgetPercent, formatCount, formatUsd } from "./format";


/** A warning for every budget at 80 % or more this month, with the exact share spent; a stronger one when the cap is reached and runs are stopped. */
export function BudgetBanner() {
  const api = useApi();
  const { slug } = useWorkspace();
  const budgets = useQuery({ queryKey: billingKeys.budgets(slug), queryFn: () => api("/api/budgets", { schema: budgetOverviewSchema }), refetchInterval: 15_000 });
  const data = budgets.data;
  if (!data) return null;
  const lines = [data.workspace, ...data.agents].filter((l) => l.state === "warning" || l.state === "exceeded");
  if (lines.length === 0) return null;
  const exceeded = lines.some((l) => l.state === "exceeded");
  return (
    <div
      role="alert"
      data-testid="budget-banner"
      className={`rounded-lg border px-4 py-3 text-sm ${exceeded ? "border-rose-200 bg-rose-50 text-rose-900" : "border-amber-200 bg-amber-50 text-amber-900"}`}
    >
      <div className="font-medium">{exceeded ? "A monthly budget is used up" : "A monthly budget is nearly used up"}</div>
      <ul className="mt-1 space-y-0.5">
        {lines.map((line) => (
          <li key={line.scope}>{describe(line, data.month.label)}</li>
        ))}
      </ul>
      <Link href={`/w/${slug}/settings/billing`} className="mt-1 inline-block text-xs font-medium underline">
        Budgets in Settings → Billing
      </Link>
    </div>
  );
}

function describe(line: BudgetLine, month: string): string {
  const who = line.agentId ? `@${line.handle}` : "The workspace";
  const amounts = `${formatUsd(line.spentCredits)} of ${formatUsd(line.budgetCredits ?? 0)} in ${month}`;
  const status = `${formatCount(budgetPercent(line.spentCredits, line.budgetCredits) ?? 100)} % of the monthly budget`;
  return line.state === "exceeded"
    ? `${who}: ${status} (${amounts}); its runs stop before their next model call until the budget is raised or the month ends.`
    : `${who}: ${status} (${amounts}).`;
}
