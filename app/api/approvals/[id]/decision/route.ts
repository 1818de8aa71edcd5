import { z } from "zod";
import { route } from "@/lib/http/route";
import { decideApproval, decisionSchema, withdrawnRefusal } from "@/lib/safety/approvals";
import { logError } from "@/lib/log";

const doc = {
  summary:
    "a rejection needs a `reason` (missing or blank: 400 `bad_request:reason`); decide once; a concurrent second decision, or one on a stopped run, gets 409 `conflict:approval`; approving what was asked on your own behalf in a four-eyes category gets 403 `forbidden:four_eyes`",
};

export const POST = route({ doc, can: "approvals.decide", params: z.object({ id: z.uuid() }), body: decisionSchema }, async ({ server, workspace, user, params, body }) => {
  const approval = await decideApproval(server.db, server.bus, server.runtime.deps.tools, {
    workspaceId: workspace.id,
    approvalId: params.id,
    decider: { userId: user.id, role: workspace.role, name: user.name },
    ...body,
  });
  // Resume right away; if this process dies first, the sweeper resumes it.
  await server.runtime.resumeRun(approval.runId).catch((error: unknown) => logError(`Could not resume run ${approval.runId}`, error));
  // The policy came to deny the call: withdrawn, not approved, and the run goes on told so.
  if (approval.status === "withdrawn") throw withdrawnRefusal(approval.reason);
  return { approval: { id: approval.id, status: approval.status, decidedAt: approval.decidedAt, fingerprint: approval.fingerprint } };
});
