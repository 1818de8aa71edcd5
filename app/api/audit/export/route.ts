import { route } from "@/lib/http/route";
import { auditExportSchema, exportAudit } from "@/lib/audit-log/read";

const doc = { summary: "the audit log of a range (the same filters), oldest first, as a file: `format=csv` (a header row; details as JSON) or `format=jsonl` (one JSON object per line)" };

export const GET = route({ doc, can: "audit.read", query: auditExportSchema }, async ({ db, workspace, query }) => {
  const lines = exportAudit(db, workspace.id, query);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  const name = `audit-${workspace.slug}-${new Date().toISOString().slice(0, 10)}.${query.format}`;
  return new Response(body, {
    headers: {
      "Content-Type": query.format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "no-store",
    },
  });
});
