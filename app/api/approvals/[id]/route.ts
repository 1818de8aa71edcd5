import { z } from "zod";
import { approvalsForViewer } from "@/lib/access/reads";
import { route } from "@/lib/http/route";
import { approvalOneSchema } from "@/lib/safety/approval-schemas";
import { getApproval } from "@/lib/safety/approvals";
import { withNotified } from "@/lib/safety/approval-notified";

const doc = {
  summary:
    "one approval: the gated action, and the run, step and chat behind it only if you may open that run; `notified`: who was told about it, through which channel, why (`asked`, `escalated_managers`, `escalated_owners`, `reminder_half`, `reminder_late`) and when, with a channel's error when it failed",
};

export const GET = route({ doc, params: z.object({ id: z.uuid() }), response: approvalOneSchema }, async ({ db, workspace, user, params }) => {
  const viewed = await approvalsForViewer(db, workspace.id, { userId: user.id, role: workspace.role }, [await getApproval(db, workspace.id, params.id)]);
  const [approval] = await withNotified(db, workspace.id, viewed);
  // One approval in, one out: getApproval has already refused a missing one (404).
  return { approval: approval! };
});
