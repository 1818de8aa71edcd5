import { route } from "@/lib/http/route";
import { getUsageReport, reportQuerySchema, reportToCsv } from "@/lib/billing/report";

const doc = { summary: "the same table as CSV, with a `total` row; credits are exact integers (1 credit = US$0.000001)" };

/** The usage page's table as CSV, for the same range and grouping. */
export const GET = route({ doc, can: "spend.read", query: reportQuerySchema }, async ({ db, workspace, query }) => {
  const report = await getUsageReport(db, workspace.id, query);
  const name = `usage-${workspace.slug}-${report.group}-${report.range.from.slice(0, 10)}-${report.range.to.slice(0, 10)}.csv`;
  return new Response(reportToCsv(report), {
    headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${name}"`, "Cache-Control": "no-store" },
  });
});
