import { listMissions } from "@/lib/missions/read";
import { route } from "@/lib/http/route";
import { missionListSchema } from "@/lib/missions/mission-schemas";

export const GET = route({ response: missionListSchema }, async ({ db, workspace, user }) => ({ missions: await listMissions(db, workspace.id, { userId: user.id, role: workspace.role }) }));
