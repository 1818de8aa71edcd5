import { z } from "zod";
import { accepted, route } from "@/lib/http/route";

const doc = {
  summary: "stops the run and withdraws its pending approvals; the partial text and the usage so far are kept",
  role: "the person it acts for, managers",
};

export const POST = route({ doc, params: z.object({ id: z.uuid() }) }, async ({ server, workspace, user, params }) => {
  const result = await server.runtime.cancelRun(workspace.id, params.id, { userId: user.id, role: workspace.role, name: user.name });
  return accepted(result);
});
