import { z } from "zod";
import { getMission } from "@/lib/missions/read";
import { route } from "@/lib/http/route";
import { missionOneSchema } from "@/lib/missions/mission-schemas";

export const GET = route({ params: z.object({ id: z.uuid() }), response: missionOneSchema }, async ({ db, workspace, user, params }) => ({
  mission: await getMission(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
}));
