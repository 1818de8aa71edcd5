import { route } from "@/lib/http/route";
import { workspaceNameReplySchema } from "@/lib/workspaces/workspace-schemas";
import { renameWorkspace, workspaceRenameSchema } from "@/lib/workspaces/workspaces";

const doc = { summary: "rename the workspace (its address stays the same); audited with the name before and after" };

export const PUT = route({ doc, can: "workspace.manage", body: workspaceRenameSchema, response: workspaceNameReplySchema }, async ({ db, workspace, user, body }) => ({
  name: await renameWorkspace(db, workspace.id, user.id, body.name),
}));
