import { z } from "zod";
import { getMission } from "@/lib/missions/read";
import { route } from "@/lib/http/route";

export const POST = route({ params: z.object({ id: z.uuid() }) }, async ({ server, workspace, user, params }) => {
  const viewer = { userId: user.id, role: workspace.role };
  await server.missions.cancel(workspace.id, params.id, viewer);
  return { mission: await getMission(server.db, workspace.id, params.id, viewer) };
});
