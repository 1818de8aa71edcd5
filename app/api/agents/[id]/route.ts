import { z } from "zod";
import { agentUpdateSchema, getAgentDetail, updateAgent } from "@/lib/agents/agents";
import { agentDetailSchema, agentReplySchema } from "@/lib/agents/agent-schemas";
import { route } from "@/lib/http/route";
import { stopAgentCommands } from "@/lib/computers/setup";
import { checkModelSpec } from "@/lib/models/registry";
import { toolNames } from "@/lib/tools/registry";

const params = z.object({ id: z.uuid() });

export const GET = route(
  { doc: { summary: "one agent with the recent runs you may open, its messages and 30-day spend (`null` for members)" }, params, response: agentDetailSchema },
  async ({ db, workspace, user, params }) => getAgentDetail(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
);

export const PATCH = route(
  {
    doc: {
      summary:
        'an edit changes only the fields it names (`status: "paused"` pauses) and names the `version` it was made from: a stale one gets 409 `conflict:stale`',
    },
    can: "agents.manage",
    params,
    body: agentUpdateSchema,
    response: agentReplySchema,
  },
  async ({ server, workspace, user, params, body }) => {
    const agent = await updateAgent(server.db, workspace.id, user.id, params.id, body, {
      modelProblem: (spec) => checkModelSpec(spec, server.models),
      knownTools: toolNames,
    });
    // A paused agent's commands stop now, on every instance; its runs stop at their next step.
    if (body.status === "paused") await stopAgentCommands(server.bus, server.runtime.deps.computers, { agentId: agent.id, workspaceId: workspace.id });
    return { agent };
  },
);
