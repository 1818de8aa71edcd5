import { z } from "zod";
import { route } from "@/lib/http/route";
import { getSessionHistory } from "@/lib/runtime/sessions";

export const GET = route({ params: z.object({ id: z.uuid() }) }, async ({ db, workspace, user, params }) =>
  getSessionHistory(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
);
