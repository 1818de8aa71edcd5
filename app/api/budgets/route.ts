import { route } from "@/lib/http/route";
import { getBudgets, updateBudgets, updateBudgetsSchema } from "@/lib/billing/budgets";

export const GET = route({ role: "reviewer" }, async ({ db, workspace }) => getBudgets(db, workspace.id));

export const PUT = route({ role: "manager", body: updateBudgetsSchema }, async ({ db, workspace, user, body }) => updateBudgets(db, workspace.id, user.id, body));
