import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import Link from "next/link";
import { canSeeSpend as spendVisibleTo } from "@/lib/access/access";
import { listAgents } from "@/lib/agents/agents";
import { getBudgets } from "@/lib/billing/budgets";
import { getUsageSummary } from "@/lib/billing/summary";
import { budgetOverviewSchema, usageSummarySchema } from "@/lib/billing/usage-schemas";
import { billingKeys, usageKeys } from "@/lib/client/query-keys";
import { startOfZonedDay } from "@/lib/client/format-time";
import { prefetch, prefetchState } from "@/lib/http/prefetch";
import { requireWorkspacePage } from "@/lib/http/page";
import { getServer } from "@/lib/server";
import { countMembers } from "@/lib/workspaces/members";
import { can } from "@/lib/access/capabilities";
import { AgentCard } from "@/components/agents/agent-card";
import { BudgetBanner } from "@/components/usage/budget-banner";
import { OverviewCards } from "@/components/usage/overview-cards";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  const { db } = await getServer();
  const [agents, members] = await Promise.all([listAgents(db, workspace.id), countMembers(db, workspace.id)]);
  // Members see activity and throughput; spend is for reviewers and up.
  const canSeeSpend = spendVisibleTo(workspace);
  const canEditAgents = can(workspace.role, "agents.manage");
  // What the cards read first, read here as GET /api/usage/summary and GET /api/budgets (reviewers and up) would.
  const now = new Date();
  const prefetched = await prefetchState([
    prefetch(usageKeys.summary(workspace.slug, workspace.timeZone), usageSummarySchema, () =>
      getUsageSummary(db, workspace.id, { from: startOfZonedDay(now, workspace.timeZone), to: now, includeSpend: canSeeSpend }),
    ),
    canSeeSpend && can(workspace.role, "spend.read") && prefetch(billingKeys.budgets(workspace.slug), budgetOverviewSchema, () => getBudgets(db, workspace.id)),
  ]);
  return (
    <HydrationBoundary state={prefetched}>
      <div className="mx-auto max-w-5xl space-y-8">
        <header>
          <h1 className="text-2xl font-semibold tracking-tight">{workspace.name}</h1>
          <p className="mt-1 text-sm text-slate-600">
            {agents.length} {agents.length === 1 ? "agent" : "agents"} · {members} {members === 1 ? "member" : "members"}
          </p>
        </header>

        <section aria-labelledby="activity-heading" className="space-y-3">
          <div className="flex items-baseline justify-between">
            <h2 id="activity-heading" className="text-sm font-semibold uppercase tracking-wide text-slate-500">
              Today
            </h2>
            {canSeeSpend ? (
              <Link href={`/w/${workspace.slug}/usage`} className="text-sm font-medium text-indigo-700 hover:underline">
                Usage details
              </Link>
            ) : null}
          </div>
          {canSeeSpend ? <BudgetBanner /> : null}
          <OverviewCards canSeeSpend={canSeeSpend} />
        </section>

        <section aria-labelledby="agents-heading" className="space-y-3">
          <h2 id="agents-heading" className="text-sm font-semibold uppercase tracking-wide text-slate-500">
            Agents
          </h2>
          {agents.length === 0 ? (
            <div className="card space-y-3 p-6 text-sm text-slate-600" data-testid="no-agents">
              <p className="text-base font-medium text-slate-900">No agents yet</p>
              <p>
                Agents do the work here: people chat with them, reviewers approve what they want to do, and their spend shows on this page.{" "}
                {canEditAgents ? "Create the first one to get started." : "A manager or an owner creates them."}
              </p>
              <Link
                href={canEditAgents ? `/w/${workspace.slug}/agents?new=1` : `/w/${workspace.slug}/agents`}
                className={canEditAgents ? "btn-primary inline-flex" : "text-sm font-medium text-indigo-700 hover:underline"}
              >
                {canEditAgents ? "Create an agent" : "Open Agents"}
              </Link>
            </div>
          ) : (
            <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
              {agents.map((agent) => (
                <li key={agent.id}>
                  <AgentCard agent={agent} />
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </HydrationBoundary>
  );
}
