import { z } from "zod";
import { route } from "@/lib/http/route";
import { deleteConnection } from "@/lib/connections/connections";

export const DELETE = route({ doc: { summary: "delete one (204)" }, can: "connections.manage", params: z.object({ id: z.uuid() }) }, async ({ db, workspace, user, params }) => {
  await deleteConnection(db, workspace.id, user.id, params.id);
});
