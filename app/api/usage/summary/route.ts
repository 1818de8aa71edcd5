import { route } from "@/lib/http/route";
import { getUsageSummary, summaryQuerySchema } from "@/lib/billing/summary";
import { hasRole } from "@/lib/workspaces/roles";

/** Everyone sees activity and throughput; spend is left out for members. */
export const GET = route({ query: summaryQuerySchema }, async ({ db, workspace, query }) =>
  getUsageSummary(db, workspace.id, { ...query, includeSpend: hasRole(workspace.role, "reviewer") }),
);
