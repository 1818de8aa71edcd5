import type { Viewer } from "../access/access";
import { approvalsForViewer } from "../access/reads";
import type { Db } from "../db/client";
import { listApprovals, type ApprovalListQuery } from "./approvals";
import { withNotified } from "./approval-notified";

/** Approvals as one person may see them (GET /api/approvals and the inbox's server prefetch). */
export async function listApprovalsForViewer(db: Db, workspaceId: string, viewer: Viewer, query: ApprovalListQuery) {
  return withNotified(db, workspaceId, await approvalsForViewer(db, workspaceId, viewer, await listApprovals(db, workspaceId, query)));
}
