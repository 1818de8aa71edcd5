import { createCrew, crewInputSchema, listCrews } from "@/lib/missions/crews";
import { created, route } from "@/lib/http/route";

export const GET = route({}, async ({ db, workspace }) => ({ crews: await listCrews(db, workspace.id) }));

export const POST = route({ role: "manager", body: crewInputSchema }, async ({ db, workspace, user, body }) => created(await createCrew(db, workspace.id, user.id, body)));
