import { approvalsForViewer } from "@/lib/access/reads";
import { route } from "@/lib/http/route";
import { approvalListQuerySchema, listApprovals } from "@/lib/safety/approvals";

export const GET = route({ query: approvalListQuerySchema }, async ({ db, workspace, user, query }) => ({
  approvals: await approvalsForViewer(db, workspace.id, { userId: user.id, role: workspace.role }, await listApprovals(db, workspace.id, query)),
}));
