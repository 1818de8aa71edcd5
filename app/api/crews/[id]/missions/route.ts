import { z } from "zod";
import { accepted, route } from "@/lib/http/route";
import { missionStartedSchema } from "@/lib/missions/mission-schemas";
import { limitRunStart } from "@/lib/runtime/run-limit";

const doc = {
  summary:
    "202 `{missionId}`: the mission starts at once; every run it may start counts against the person's run starts (429 `rate_limited:runs`); `capCredits` (optional): what it may spend before a manager is asked whether it goes on",
};

export const POST = route(
  { doc, params: z.object({ id: z.uuid() }), body: z.object({ goal: z.string().trim().min(1).max(4000), capCredits: z.number().int().min(1).max(1e15).nullable().optional() }), response: missionStartedSchema },
  async ({ server, workspace, user, params, body }) => {
    // Every run the mission may start counts against the person's run starts, as their messages do.
    const limit = (runs: number) => limitRunStart(server, user.id, runs);
    const { missionId } = await server.missions.start({ workspaceId: workspace.id, crewId: params.id, goal: body.goal, capCredits: body.capCredits ?? null, userId: user.id, limit });
    return accepted({ missionId });
  },
);
