import { z } from "zod";
import { getMission } from "@/lib/missions/read";
import { route } from "@/lib/http/route";
import { missionOneSchema } from "@/lib/missions/mission-schemas";

const doc = {
  summary:
    "`{mission: {id, state, goal, crewId, crewName, nodes: [{id, role, agentHandle, state, runIds, turns: [{runId, tokens, credits}], stepId, inputTokens, outputTokens, credits}], edges, result, error, failedNodeId, inputTokens, outputTokens, credits, startedAt, finishedAt}}`",
  role: "member (credits: reviewer)",
};

export const GET = route({ doc, params: z.object({ id: z.uuid() }), response: missionOneSchema }, async ({ db, workspace, user, params }) => ({
  mission: await getMission(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
}));
