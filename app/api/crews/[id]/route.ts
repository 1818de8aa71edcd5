import { z } from "zod";
import { crewPatchSchema, getCrew, updateCrew } from "@/lib/missions/crews";
import { route } from "@/lib/http/route";
import { crewOneSchema } from "@/lib/missions/mission-schemas";

const params = z.object({ id: z.uuid() });

export const GET = route({ doc: { summary: "one crew" }, params, response: crewOneSchema }, async ({ db, workspace, params }) => ({
  crew: await getCrew(db, workspace.id, params.id),
}));

const editDoc = { summary: "change any of its fields (checked like a new one)" };

export const PATCH = route({ doc: editDoc, can: "crews.manage", params, body: crewPatchSchema, response: crewOneSchema }, async ({ db, workspace, user, params, body }) => ({
  crew: await updateCrew(db, workspace.id, user.id, params.id, body),
}));
