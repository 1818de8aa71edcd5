import { approvalsForViewer } from "@/lib/access/reads";
import { route } from "@/lib/http/route";
import { approvalListSchema } from "@/lib/safety/approval-schemas";
import { approvalListQuerySchema, listApprovals } from "@/lib/safety/approvals";

export const GET = route({ query: approvalListQuerySchema, response: approvalListSchema }, async ({ db, workspace, user, query }) => ({
  approvals: await approvalsForViewer(db, workspace.id, { userId: user.id, role: workspace.role }, await listApprovals(db, workspace.id, query)),
}));
