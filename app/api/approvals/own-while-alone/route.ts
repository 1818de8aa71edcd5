import { route } from "@/lib/http/route";
import { soloApprovalSchema } from "@/lib/safety/approval-schemas";
import { readSoloApproval, setSoloApproval, soloApprovalBodySchema } from "@/lib/safety/solo-approval";

const readDoc = {
  summary:
    "a team of one: `alone` (at most one person may decide gated calls), and whether the owner approves their own requests now (`on`, who turned it on and when)",
};

export const GET = route({ doc: readDoc, can: "approvals.decide", response: soloApprovalSchema }, async ({ db, workspace }) => readSoloApproval(db, workspace.id));

const setDoc = {
  summary:
    "`{on}`: while nobody else may decide, let the owner approve their own requests (not those through a door token) until a second person who may decide joins; audited; 409 `conflict:not_alone` once someone else can decide",
};

export const PUT = route({ doc: setDoc, can: "approvals.ownWhileAlone", body: soloApprovalBodySchema, response: soloApprovalSchema }, async ({ db, workspace, user, body }) =>
  setSoloApproval(db, workspace.id, { userId: user.id, role: workspace.role }, body.on),
);
