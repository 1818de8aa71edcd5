import { route } from "@/lib/http/route";
import { memberListSchema } from "@/lib/workspaces/workspace-schemas";
import { listMembers } from "@/lib/workspaces/members";

// People join by invitation only (POST /api/invitations): there is no way to add an account here.
export const GET = route({ doc: { summary: "the workspace's people" }, can: "members.manage", response: memberListSchema }, async ({ db, workspace }) => ({
  members: await listMembers(db, workspace.id),
}));
