import { z } from "zod";
import { deleteCredential } from "@/lib/connections/credentials";
import { route } from "@/lib/http/route";

export const DELETE = route({ doc: { summary: "delete one (204): agents can no longer use it" }, can: "connections.manage", params: z.object({ id: z.uuid() }) }, async ({ db, workspace, user, params }) => {
  await deleteCredential(db, workspace.id, user.id, params.id);
});
