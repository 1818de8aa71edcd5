import { route } from "@/lib/http/route";
import { approvalListQuerySchema, listApprovals } from "@/lib/safety/approvals";

export const GET = route({ query: approvalListQuerySchema }, async ({ db, workspace, query }) => ({
  approvals: await listApprovals(db, workspace.id, query),
}));
