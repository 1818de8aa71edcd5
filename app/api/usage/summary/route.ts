import { canSeeSpend } from "@/lib/access/access";
import { getUsageSummary, summaryQuerySchema } from "@/lib/billing/summary";
import { route } from "@/lib/http/route";
import { usageSummarySchema } from "@/lib/billing/usage-schemas";

const doc = {
  summary: "the overview cards as JSON for a range of at most 400 days (ISO timestamps; default the last 24 hours); `spend` is `null` for members",
  role: "member (spend: reviewer)",
};

/** Everyone sees activity and throughput; spend is left out for members. */
export const GET = route({ doc, query: summaryQuerySchema, response: usageSummarySchema }, async ({ db, workspace, query }) =>
  getUsageSummary(db, workspace.id, { ...query, includeSpend: canSeeSpend(workspace) }),
);
