import { z } from "zod";
import { accepted, route } from "@/lib/http/route";
import { comparisonStartedSchema } from "@/lib/missions/mission-schemas";
import { startComparison } from "@/lib/missions/compare";
import { limitRunStart } from "@/lib/runtime/run-limit";

const doc = {
  summary:
    "→ 202 `{id}`: runs the goal on both crews side by side; the workspace's judge scores both results once both missions end (400 for the same crew twice, 404 for a crew of another workspace, 429 when both crews' runs are more than the person has left: checked before either mission starts)",
};

export const POST = route(
  { doc, body: z.object({ goal: z.string().trim().min(1).max(4000), crewIds: z.tuple([z.uuid(), z.uuid()]) }), response: comparisonStartedSchema },
  async ({ server, workspace, user, body }) => {
    const { id } = await startComparison(
      { db: server.db, models: server.runtime.deps.models, missions: server.missions },
      { workspaceId: workspace.id, userId: user.id, goal: body.goal, crewIds: body.crewIds, limit: (runs) => limitRunStart(server, user.id, runs) },
    );
    return accepted({ id });
  },
);
