import { z } from "zod";
import { assertReadableRun } from "@/lib/access/reads";
import { route } from "@/lib/http/route";
import { handOverWhen, sseResponse } from "@/lib/http/sse";
import { streamRunEvents } from "@/lib/runtime/stream";

export const dynamic = "force-dynamic";

export const GET = route(
  // Lower case, as the journal's topics and this process's followers name runs.
  { params: z.object({ id: z.uuid().transform((id) => id.toLowerCase()) }), query: z.object({ after: z.coerce.number().int().min(0).optional(), workspace: z.string().optional() }) },
  async ({ req, server, workspace, user, params, query, stillAllowed }) => {
    const viewer = { userId: user.id, role: workspace.role };
    // The browser's automatic reconnect sends Last-Event-ID; a fresh page load passes ?after=.
    const lastEventId = Number(req.headers.get("last-event-id"));
    const afterSeq = Number.isInteger(lastEventId) && lastEventId > 0 ? lastEventId : (query.after ?? 0);
    const abort = new AbortController();
    req.signal.addEventListener("abort", () => abort.abort());
    // The journal's first read goes out with the access check; none of it is sent unless the check passes.
    const events = await handOverWhen(
      streamRunEvents({ db: server.db, bus: server.bus, runId: params.id, afterSeq, signal: abort.signal, viewer }),
      assertReadableRun(server.db, workspace.id, params.id, viewer),
      abort,
    );
    return sseResponse(events, { stillAllowed, onClose: () => abort.abort() });
  },
);
