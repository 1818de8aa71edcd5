import { z } from "zod";
import { route } from "@/lib/http/route";
import { comparisonOneSchema } from "@/lib/missions/mission-schemas";
import { getComparison } from "@/lib/missions/compare";

const doc = {
  summary:
    "`{comparison: {id, goal, state: running|judged, judgeModel, judgeCredits, sides: [{mission, score: {criteria: [{criterion, score, reason}], error?}, total, approvalsNeeded, wallMs}]}}`",
  role: "member (credits: reviewer)",
};

export const GET = route({ doc, params: z.object({ id: z.uuid() }), response: comparisonOneSchema }, async ({ db, workspace, user, params }) => ({
  comparison: await getComparison(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
}));
