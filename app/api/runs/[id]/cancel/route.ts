import { z } from "zod";
import { accepted, route } from "@/lib/http/route";

export const POST = route({ params: z.object({ id: z.uuid() }) }, async ({ server, workspace, user, params }) => {
  const result = await server.runtime.cancelRun(workspace.id, params.id, { userId: user.id, role: workspace.role });
  return accepted(result);
});
