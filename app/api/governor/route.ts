import { route } from "@/lib/http/route";
import { checkModelSpec } from "@/lib/models/registry";
import { getGovernor, governorSettingsSchema, updateGovernor } from "@/lib/safety/governor";

export const GET = route({}, async ({ db, workspace }) => ({ governor: await getGovernor(db, workspace.id) }));

export const PUT = route({ role: "manager", body: governorSettingsSchema }, async ({ server, workspace, user, body }) => ({
  governor: await updateGovernor(server.db, workspace.id, user.id, body, (spec) => checkModelSpec(spec, server.models)),
}));
