import { z } from "zod";
import { route } from "@/lib/http/route";
import { runSummarySchema } from "@/lib/runtime/run-schemas";
import { getRunSummary } from "@/lib/runtime/run-summary";

/** What a run was: who ran it, why, how it ended; its events come from /api/runs/{id}/events. */
export const GET = route({ params: z.object({ id: z.uuid() }), response: runSummarySchema }, async ({ db, workspace, user, params }) =>
  getRunSummary(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
);
