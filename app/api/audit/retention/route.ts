import { eq } from "drizzle-orm";
import { route } from "@/lib/http/route";
import { workspaces } from "@/lib/db/schema";
import { auditRetentionSchema as retentionSchema } from "@/lib/audit-log/audit-schemas";
import { auditRetentionBodySchema, auditRetentionDays, setAuditRetention } from "@/lib/audit-log/retention";

export const GET = route(
  { doc: { summary: "how many days the audit log keeps an entry (default 365)" }, can: "audit.read", response: retentionSchema },
  async ({ db, workspace }) => {
    const [ws] = await db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspace.id));
    return { days: auditRetentionDays(ws?.settings) };
  },
);

export const PUT = route(
  {
    doc: { summary: "`{days}` from 30 to 3650: entries older than that are removed within the hour (the removal itself is audited); owners; audited" },
    can: "audit.retention",
    apiKeys: false,
    body: auditRetentionBodySchema,
    response: retentionSchema,
  },
  async ({ db, workspace, user, body }) => setAuditRetention(db, workspace.id, user.id, body.days),
);
