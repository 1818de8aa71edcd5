import { z } from "zod";
import { route } from "@/lib/http/route";
import { runSummarySchema } from "@/lib/runs/run-schemas";
import { getRunSummary } from "@/lib/runs/run-summary";

const doc = { summary: "what a run was: agent, trigger, input, state, tokens, cost", role: "who may read the run" };

/** What a run was: who ran it, why, how it ended; its events come from /api/runs/{id}/events. */
export const GET = route({ doc, params: z.object({ id: z.uuid() }), response: runSummarySchema }, async ({ db, workspace, user, params }) =>
  getRunSummary(db, workspace.id, params.id, { userId: user.id, role: workspace.role }),
);
