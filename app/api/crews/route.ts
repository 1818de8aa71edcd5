import { createCrew, crewInputSchema, listCrews } from "@/lib/missions/crews";
import { created, route } from "@/lib/http/route";
import { crewListSchema } from "@/lib/missions/mission-schemas";
import { createdIdSchema } from "@/lib/shared-schemas";

export const GET = route({ response: crewListSchema }, async ({ db, workspace }) => ({ crews: await listCrews(db, workspace.id) }));

export const POST = route({ can: "crews.manage", body: crewInputSchema, response: createdIdSchema }, async ({ db, workspace, user, body }) => created(await createCrew(db, workspace.id, user.id, body)));
