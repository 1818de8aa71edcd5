import { reconciliationViewSchema } from "@/lib/billing/billing-schemas";
import { route } from "@/lib/http/route";
import { listReconciliations } from "@/lib/billing/reconcile";

export const GET = route({ can: "spend.read", response: reconciliationViewSchema }, async ({ db, workspace }) => listReconciliations(db, workspace.id));
