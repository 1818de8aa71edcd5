import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { canSeeSpend } from "@/lib/access/access";
import { BudgetBanner } from "@/components/usage/budget-banner";
import { UsageReportView } from "@/components/usage/usage-report";

export const metadata: Metadata = { title: "Usage" };

export default async function UsagePage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!canSeeSpend(workspace)) {
    forbidden();
  }
  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Usage</h1>
        <p className="mt-1 text-sm text-slate-600">
          Every model call of {workspace.name}, charged once in the usage ledger: by agent, model or source, over the range you choose.
        </p>
      </header>
      <BudgetBanner />
      <UsageReportView />
    </div>
  );
}
