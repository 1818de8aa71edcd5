import { reconciliationViewSchema } from "@/lib/billing/billing-schemas";
import { route } from "@/lib/http/route";
import { listReconciliations } from "@/lib/runs/reconcile";

export const GET = route(
  { doc: { summary: "reconciliation findings (gaps filled, differences flagged) and when it last ran" }, can: "spend.read", response: reconciliationViewSchema },
  async ({ db, workspace }) => listReconciliations(db, workspace.id),
);
