import { z } from "zod";
import { getMission } from "@/lib/missions/read";
import { route } from "@/lib/http/route";

const doc = {
  summary: "stops every running and waiting node and withdraws their pending approvals; 409 once it has ended",
  role: "the person who started it, managers",
};

export const POST = route({ doc, params: z.object({ id: z.uuid() }) }, async ({ server, workspace, user, params }) => {
  const viewer = { userId: user.id, role: workspace.role };
  await server.missions.cancel(workspace.id, params.id, { ...viewer, name: user.name });
  return { mission: await getMission(server.db, workspace.id, params.id, viewer) };
});
