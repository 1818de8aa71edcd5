import { usageReportSchema } from "@/lib/billing/billing-schemas";
import { route } from "@/lib/http/route";
import { getUsageReport, reportQuerySchema } from "@/lib/billing/report";

export const GET = route({ can: "spend.read", query: reportQuerySchema, response: usageReportSchema }, async ({ db, workspace, query }) => getUsageReport(db, workspace.id, query));
