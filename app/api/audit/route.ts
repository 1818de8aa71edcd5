import { route } from "@/lib/http/route";
import { auditQuerySchema, readAudit } from "@/lib/audit-log/read";
import { auditPageSchema } from "@/lib/audit-log/audit-schemas";

const doc = {
  summary:
    "the audit log, newest first: who (`actor`), did what (`action`), to which `object`, when (`at`), with its `details`; filters `from`/`to` (ISO times with an offset), `actor` (a person's id), `action` (`approval.approved`, or a family such as `approval`), `object` (`approval` or `approval:<id>`); `limit` (1–200, 50) and `before` (the `next` of the previous page). The log cannot be changed or deleted",
};

export const GET = route({ doc, can: "audit.read", query: auditQuerySchema, response: auditPageSchema }, async ({ db, workspace, query }) => readAudit(db, workspace.id, query));
