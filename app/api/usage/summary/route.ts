import { canSeeSpend } from "@/lib/access/access";
import { getUsageSummary, summaryQuerySchema } from "@/lib/billing/summary";
import { route } from "@/lib/http/route";
import { usageSummarySchema } from "@/lib/billing/usage-schemas";

/** Everyone sees activity and throughput; spend is left out for members. */
export const GET = route({ query: summaryQuerySchema, response: usageSummarySchema }, async ({ db, workspace, query }) =>
  getUsageSummary(db, workspace.id, { ...query, includeSpend: canSeeSpend(workspace) }),
);
