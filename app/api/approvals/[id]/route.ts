import { z } from "zod";
import { route } from "@/lib/http/route";
import { getApproval } from "@/lib/safety/approvals";

export const GET = route({ params: z.object({ id: z.uuid() }) }, async ({ db, workspace, params }) => ({
  approval: await getApproval(db, workspace.id, params.id),
}));
