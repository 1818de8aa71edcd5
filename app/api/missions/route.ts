import { listMissions } from "@/lib/missions/read";
import { route } from "@/lib/http/route";

export const GET = route({}, async ({ db, workspace, user }) => ({ missions: await listMissions(db, workspace.id, { userId: user.id, role: workspace.role }) }));
