import { route } from "@/lib/http/route";
import { logError } from "@/lib/log";
import { policyReplySchema } from "@/lib/safety/policy-schemas";
import { getPolicyView, updatePolicy, updatePolicySchema } from "@/lib/safety/settings";

export const GET = route({ doc: { summary: "the approval policy" }, response: policyReplySchema }, async ({ server, workspace }) => ({
  policy: await getPolicyView(server.db, workspace.id, server.runtime.deps.tools),
}));

const saveDoc = { summary: "a save withdraws the waiting requests it now denies and says how many (`withdrawn`)" };

export const PUT = route({ doc: saveDoc, can: "policy.manage", body: updatePolicySchema, response: policyReplySchema }, async ({ server, workspace, user, body }) => {
  const { policy, withdrawn } = await updatePolicy(server.db, server.bus, workspace.id, user.id, server.runtime.deps.tools, body);
  // The runs whose requests were withdrawn go on, told why; if this process dies first, the sweeper resumes them.
  for (const w of withdrawn) await server.runtime.resumeRun(w.runId).catch((error: unknown) => logError(`Could not resume run ${w.runId}`, error));
  return { policy, withdrawn: withdrawn.length };
});
