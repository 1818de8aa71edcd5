import { z } from "zod";
import { route } from "@/lib/http/route";
import { eventStreamResponse } from "@/lib/http/sse";
import { getMissionRunRow } from "@/lib/missions/read";
import { streamMissionEvents } from "@/lib/missions/stream";

export const dynamic = "force-dynamic";

const doc = { summary: "the mission journal as Server-Sent Events; `Last-Event-ID` or `?after=` resumes; ends with `mission_finished`" };

export const GET = route(
  { doc, params: z.object({ id: z.uuid() }), query: z.object({ after: z.coerce.number().int().min(0).optional(), workspace: z.string().optional() }) },
  async ({ req, server, workspace, params, query, stillAllowed }) => {
    await getMissionRunRow(server.db, workspace.id, params.id);
    // The browser's automatic reconnect sends Last-Event-ID; a fresh page load passes ?after=.
    const lastEventId = Number(req.headers.get("last-event-id"));
    const afterSeq = Number.isInteger(lastEventId) && lastEventId > 0 ? lastEventId : (query.after ?? 0);
    const abort = new AbortController();
    req.signal.addEventListener("abort", () => abort.abort());
    const items = streamMissionEvents({ db: server.db, bus: server.bus, missionRunId: params.id, afterSeq, signal: abort.signal });
    return eventStreamResponse(items, { stillAllowed, onClose: () => abort.abort() });
  },
);
