import { route } from "@/lib/http/route";
import { logError } from "@/lib/log";
import { batchDecisionSchema, decideMany } from "@/lib/safety/approval-batch";
import { batchResultsSchema } from "@/lib/safety/approval-schemas";

const doc = {
  summary:
    "`{ids, decision, reason?}`: decides up to 100 pending requests, each on its own under its own rules; answers `{results: [{id, status, code?, message?}]}` where a request not decided keeps its status and says why (`forbidden:four_eyes`, `conflict:approval` when decided by someone else, expired or stopped, `not_found:approval`); rejecting needs a `reason` (400 `bad_request:reason`, nothing decided)",
};

export const POST = route({ doc, can: "approvals.decide", body: batchDecisionSchema, response: batchResultsSchema }, async ({ server, workspace, user, body }) => {
  const results = await decideMany(server.db, server.bus, server.runtime.deps.tools, {
    workspaceId: workspace.id,
    decider: { userId: user.id, role: workspace.role, name: user.name },
    ...body,
  });
  // Resume each decided run now; if this process dies first, the sweeper resumes them.
  for (const r of results) {
    if (r.runId && (r.status === "approved" || r.status === "rejected" || r.status === "withdrawn")) {
      await server.runtime.resumeRun(r.runId).catch((error: unknown) => logError(`Could not resume run ${r.runId}`, error));
    }
  }
  return { results: results.map(({ runId: _runId, ...r }) => r) };
});
