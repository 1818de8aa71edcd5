import { route } from "@/lib/http/route";
import { budgetOverviewSchema } from "@/lib/billing/usage-schemas";
import { getBudgets, updateBudgets, updateBudgetsSchema } from "@/lib/billing/budgets";

export const GET = route(
  { doc: { summary: "monthly budgets in credits with this month's spend and state" }, can: "spend.read", response: budgetOverviewSchema },
  async ({ db, workspace }) => getBudgets(db, workspace.id),
);

export const PUT = route(
  { doc: { summary: "set them (`null` removes one)" }, can: "billing.manage", body: updateBudgetsSchema, response: budgetOverviewSchema },
  async ({ db, workspace, user, body }) => updateBudgets(db, workspace.id, user.id, body),
);
