import { z } from "zod";
import { route } from "@/lib/http/route";

export const POST = route(
  { params: z.object({ id: z.uuid() }), body: z.object({ goal: z.string().trim().min(1).max(4000) }) },
  async ({ server, workspace, user, params, body }) => {
    const { missionId } = await server.missions.start({ workspaceId: workspace.id, crewId: params.id, goal: body.goal, userId: user.id });
    return Response.json({ missionId }, { status: 202, headers: { "Cache-Control": "no-store" } });
  },
);
