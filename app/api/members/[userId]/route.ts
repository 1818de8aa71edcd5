import { z } from "zod";
import { route } from "@/lib/http/route";
import { changeMemberRole, changeRoleSchema, removeMember } from "@/lib/workspaces/members";

const params = z.object({ userId: z.string() });

export const PATCH = route({ doc: { summary: "change a role" }, can: "members.manage", params, body: changeRoleSchema }, async ({ db, workspace, user, params, body }) => ({
  member: await changeMemberRole(db, workspace.id, { userId: user.id, role: workspace.role }, params.userId, body.role),
}));

const removeDoc = { summary: "remove (only owners touch owners; the last owner stays)" };

export const DELETE = route({ doc: removeDoc, can: "members.manage", params }, async ({ db, workspace, user, params }) => {
  await removeMember(db, workspace.id, { userId: user.id, role: workspace.role }, params.userId);
});
