import { route } from "@/lib/http/route";
import { listReconciliations } from "@/lib/billing/reconcile";

export const GET = route({ role: "reviewer" }, async ({ db, workspace }) => listReconciliations(db, workspace.id));
