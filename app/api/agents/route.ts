import { agentInputSchema, createAgent, listAgents } from "@/lib/agents/agents";
import { agentListSchema, agentReplySchema } from "@/lib/agents/agent-schemas";
import { created, route } from "@/lib/http/route";
import { checkModelSpec } from "@/lib/models/registry";
import { toolNames } from "@/lib/tools/registry";

export const GET = route({ doc: { summary: "the workspace's agents" }, response: agentListSchema }, async ({ db, workspace }) => ({
  agents: await listAgents(db, workspace.id),
}));

export const POST = route(
  {
    doc: { summary: "create one (the model spec is checked against the configured providers)" },
    can: "agents.manage",
    body: agentInputSchema,
    response: agentReplySchema,
  },
  async ({ server, workspace, user, body }) =>
    created({
      agent: await createAgent(server.db, workspace.id, user.id, body, {
        modelProblem: (spec) => checkModelSpec(spec, server.models),
        knownTools: toolNames,
      }),
    }),
);
