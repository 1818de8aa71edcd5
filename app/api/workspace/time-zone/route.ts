import { route } from "@/lib/http/route";
import { timeZoneSchema } from "@/lib/workspaces/workspace-schemas";
import { getWorkspaceTimeZone, setWorkspaceTimeZone, timeZoneBodySchema } from "@/lib/workspaces/time-zone";

export const GET = route({ doc: { summary: "the IANA zone the workspace's dates are shown in" }, response: timeZoneSchema }, async ({ db, workspace }) => ({
  timeZone: await getWorkspaceTimeZone(db, workspace.id),
}));

const changeDoc = { summary: "an unknown zone answers 422 `unprocessable:time_zone`" };

export const PUT = route({ doc: changeDoc, can: "workspace.manage", body: timeZoneBodySchema, response: timeZoneSchema }, async ({ db, workspace, user, body }) => ({
  timeZone: await setWorkspaceTimeZone(db, workspace.id, user.id, body.timeZone),
}));
