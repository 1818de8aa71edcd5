import { createCrew, crewInputSchema, listCrews } from "@/lib/missions/crews";
import { created, route } from "@/lib/http/route";
import { crewListSchema } from "@/lib/missions/mission-schemas";
import { createdIdSchema } from "@/lib/shared-schemas";

export const GET = route({ doc: { summary: "crews" }, response: crewListSchema }, async ({ db, workspace }) => ({ crews: await listCrews(db, workspace.id) }));

const createDoc = { summary: "create one (201 `{id}`); a crew that cannot run gets 422 `unprocessable:crew` naming the node or edge in `details`" };

export const POST = route({ doc: createDoc, can: "crews.manage", body: crewInputSchema, response: createdIdSchema }, async ({ db, workspace, user, body }) =>
  created(await createCrew(db, workspace.id, user.id, body)),
);
