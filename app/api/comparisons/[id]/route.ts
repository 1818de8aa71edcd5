import { z } from "zod";
import { route } from "@/lib/http/route";
import { comparisonOneSchema } from "@/lib/missions/mission-schemas";
import { getComparison } from "@/lib/missions/compare";

export const GET = route({ params: z.object({ id: z.uuid() }), response: comparisonOneSchema }, async ({ db, workspace, user, params }) => ({
  comparison: await getComparison(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
}));
