import { route } from "@/lib/http/route";
import { governorReplySchema, governorViewSchema } from "@/lib/safety/governor-schemas";
import { checkModelSpec } from "@/lib/models/registry";
import { getGovernor, governorSettingsSchema, updateGovernor } from "@/lib/safety/governor";

// `defaults` says what an unset setting means on this server (the door's wait comes from the environment).
export const GET = route({ response: governorViewSchema }, async ({ db, server, workspace }) => ({
  governor: await getGovernor(db, workspace.id),
  defaults: { doorWaitSeconds: server.env.CLAWDECK_DOOR_WAIT_SECONDS },
}));

export const PUT = route({ can: "policy.manage", body: governorSettingsSchema, response: governorReplySchema }, async ({ server, workspace, user, body }) => ({
  governor: await updateGovernor(server.db, workspace.id, user.id, body, (spec) => checkModelSpec(spec, server.models)),
}));
