import { route } from "@/lib/http/route";
import { policyReplySchema } from "@/lib/safety/policy-schemas";
import { getPolicyView, updatePolicy, updatePolicySchema } from "@/lib/safety/settings";

export const GET = route({ response: policyReplySchema }, async ({ server, workspace }) => ({ policy: await getPolicyView(server.db, workspace.id, server.runtime.deps.tools) }));

export const PUT = route({ role: "manager", body: updatePolicySchema, response: policyReplySchema }, async ({ server, workspace, user, body }) => ({
  policy: await updatePolicy(server.db, workspace.id, user.id, server.runtime.deps.tools, body),
}));
