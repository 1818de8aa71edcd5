import { route } from "@/lib/http/route";
import { governorReplySchema, governorViewSchema } from "@/lib/safety/governor-schemas";
import { checkModelSpec } from "@/lib/models/registry";
import { getGovernor, governorSettingsSchema, updateGovernor } from "@/lib/safety/governor";

// `defaults` says what an unset setting means on this server (the door's wait comes from the environment).
export const GET = route(
  { doc: { summary: "the governor, and its `defaults`: what an unset setting means on this server" }, response: governorViewSchema },
  async ({ db, server, workspace }) => ({
    governor: await getGovernor(db, workspace.id),
    defaults: { doorWaitSeconds: server.env.CLAWDECK_DOOR_WAIT_SECONDS },
  }),
);

const changeDoc = {
  summary:
    "per gated category, `people`, `judge_then_people` or `judge` decide; fails closed unless `failOpen`; `doorWaitSeconds` (1–600, null: the server default) is how long a gated door call waits. See `docs/door.md`",
};

export const PUT = route({ doc: changeDoc, can: "policy.manage", body: governorSettingsSchema, response: governorReplySchema }, async ({ server, workspace, user, body }) => ({
  governor: await updateGovernor(server.db, workspace.id, user.id, body, (spec) => checkModelSpec(spec, server.models)),
}));
