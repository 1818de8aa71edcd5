"use client";

import { useQuery } from "@tanstack/react-query";
import { budgetOverviewSchema } from "@/lib/billing/usage-schemas";
import { useApi, useWorkspace } from "../providers";
import { billingKeys } from "@/lib/client/query-keys";
import { budgetStatus, formatUsd } from "./format";

const tones = { none: "text-slate-500", ok: "text-emerald-700", warning: "text-amber-800", exceeded: "text-rose-700" } as const;

/** An agent's monthly budget in one exact phrase ("97 % of the monthly budget"), for those who see spend. */
export function AgentBudgetStatus({ agentId }: { agentId: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const budgets = useQuery({ queryKey: billingKeys.budgets(slug), queryFn: () => api("/api/budgets", { schema: budgetOverviewSchema }), refetchInterval: 15_000 });
  const line = budgets.data?.agents.find((a) => a.agentId === agentId);
  if (!line) return null;
  return (
    <p className={`mt-2 text-xs font-medium ${tones[line.state]}`} data-testid="agent-budget">
      {budgetStatus(line.spentCredits, line.budgetCredits)}
      {line.budgetCredits !== null ? ` (${formatUsd(line.spentCredits)} of ${formatUsd(line.budgetCredits)} in ${budgets.data!.month.label})` : ""}
    </p>
  );
}
