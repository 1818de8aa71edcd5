import { z } from "zod";
import { route } from "@/lib/http/route";
import { revokeInvitation } from "@/lib/workspaces/invitations";

const params = z.object({ id: z.string() });

export const DELETE = route({ doc: { summary: "revoke one (204)" }, can: "members.manage", params }, async ({ db, workspace, user, params }) => {
  await revokeInvitation(db, workspace.id, { userId: user.id, role: workspace.role }, params.id);
});
