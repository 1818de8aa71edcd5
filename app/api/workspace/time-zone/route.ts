import { route } from "@/lib/http/route";
import { timeZoneSchema } from "@/lib/workspaces/workspace-schemas";
import { getWorkspaceTimeZone, setWorkspaceTimeZone, timeZoneBodySchema } from "@/lib/workspaces/time-zone";

export const GET = route({ response: timeZoneSchema }, async ({ db, workspace }) => ({ timeZone: await getWorkspaceTimeZone(db, workspace.id) }));

export const PUT = route({ can: "workspace.manage", body: timeZoneBodySchema, response: timeZoneSchema }, async ({ db, workspace, user, body }) => ({
  timeZone: await setWorkspaceTimeZone(db, workspace.id, user.id, body.timeZone),
}));
