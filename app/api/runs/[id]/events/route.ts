import { z } from "zod";
import { route } from "@/lib/http/route";
import { runEventsResponse } from "@/lib/http/run-events";

export const dynamic = "force-dynamic";

const doc = {
  summary: "Server-Sent Events: `id` is the sequence; `Last-Event-ID` or `?after=` replays what was missed, then tails live until the terminal event",
  role: "who may read the run",
};

export const GET = route(
  // Lower case, as the journal's topics and this process's followers name runs.
  { doc, params: z.object({ id: z.uuid().transform((id) => id.toLowerCase()) }), query: z.object({ after: z.coerce.number().int().min(0).optional(), workspace: z.string().optional() }) },
  async ({ req, server, workspace, user, params, query, stillAllowed }) => {
    // The browser's automatic reconnect sends Last-Event-ID; a fresh page load passes ?after=.
    const lastEventId = Number(req.headers.get("last-event-id"));
    const afterSeq = Number.isInteger(lastEventId) && lastEventId > 0 ? lastEventId : (query.after ?? 0);
    const viewer = { userId: user.id, role: workspace.role };
    return runEventsResponse({ req, server, workspaceId: workspace.id, viewer, runId: params.id, afterSeq, stillAllowed });
  },
);
