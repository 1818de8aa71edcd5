import { z } from "zod";
import { crewPatchSchema, getCrew, updateCrew } from "@/lib/missions/crews";
import { route } from "@/lib/http/route";

const params = z.object({ id: z.uuid() });

export const GET = route({ params }, async ({ db, workspace, params }) => ({ crew: await getCrew(db, workspace.id, params.id) }));

export const PATCH = route({ role: "manager", params, body: crewPatchSchema }, async ({ db, workspace, user, params, body }) => ({
  crew: await updateCrew(db, workspace.id, user.id, params.id, body),
}));
