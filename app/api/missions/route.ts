import { listMissions } from "@/lib/missions/read";
import { route } from "@/lib/http/route";
import { missionListSchema } from "@/lib/missions/mission-schemas";

const doc = { summary: "`{missions}`: the workspace's missions, each as `GET /api/missions/{id}` shows one", role: "member (credits: reviewer)" };

export const GET = route({ doc, response: missionListSchema }, async ({ db, workspace, user }) => ({
  missions: await listMissions(db, workspace.id, { userId: user.id, role: workspace.role }),
}));
