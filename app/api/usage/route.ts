import { usageReportSchema } from "@/lib/billing/billing-schemas";
import { route } from "@/lib/http/route";
import { getUsageReport, reportQuerySchema } from "@/lib/billing/report";

const doc = {
  summary:
    "the usage page: totals per group, totals, and a series per hour (ranges up to 3 days) or per day in `tz`; by mission, one row per mission (from the ledger's mission turns) and one for everything outside missions; by source, agent runs by what started them; by person, whom the spend was for",
};

export const GET = route({ doc, can: "spend.read", query: reportQuerySchema, response: usageReportSchema }, async ({ db, workspace, query }) =>
  getUsageReport(db, workspace.id, query),
);
