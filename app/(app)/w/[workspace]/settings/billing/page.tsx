import type { Metadata } from "next";
import { forbidden } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { canSeeSpend } from "@/lib/access/access";
import { can } from "@/lib/access/capabilities";
import { BudgetsPanel } from "@/components/billing/budgets-panel";
import { PricesPanel } from "@/components/billing/prices-panel";
import { ReconciliationPanel } from "@/components/billing/reconciliation-panel";

export const metadata: Metadata = { title: "Billing" };

export default async function BillingPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!canSeeSpend(workspace)) {
    forbidden();
  }
  const canEdit = can(workspace.role, "billing.manage");
  return (
    <div className="mx-auto max-w-5xl space-y-8">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">Billing</h1>
        <p className="mt-1 text-sm text-slate-600">
          Monthly budgets, the prices every model call is charged at, and what reconciliation of runs against the usage ledger found.
          {canEdit ? "" : " You can read these; managers and owners change them."}
        </p>
      </header>
      <Section id="budgets" title="Budgets">
        <BudgetsPanel canEdit={canEdit} />
      </Section>
      <Section id="prices" title="Prices">
        <PricesPanel canEdit={canEdit} />
      </Section>
      <Section id="reconciliation" title="Reconciliation">
        <ReconciliationPanel />
      </Section>
    </div>
  );
}

function Section({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="space-y-3">
      <h2 id={`${id}-heading`} className="text-sm font-semibold uppercase tracking-wide text-slate-500">
        {title}
      </h2>
      {children}
    </section>
  );
}
