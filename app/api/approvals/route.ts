import { route } from "@/lib/http/route";
import { approvalListSchema } from "@/lib/safety/approval-schemas";
import { listApprovalsForViewer } from "@/lib/safety/approval-reads";
import { approvalListQuerySchema } from "@/lib/safety/approvals";

export const GET = route({ doc: { summary: "approvals" }, query: approvalListQuerySchema, response: approvalListSchema }, async ({ db, workspace, user, query }) => ({
  approvals: await listApprovalsForViewer(db, workspace.id, { userId: user.id, role: workspace.role }, query),
}));
