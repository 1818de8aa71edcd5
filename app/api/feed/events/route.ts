import { z } from "zod";
import { route } from "@/lib/http/route";
import { sseFrame, streamErrorFrame } from "@/lib/http/sse";
import { feedFilterSchema, streamFeed } from "@/lib/feed/feed";
import { logError } from "@/lib/log";

export const dynamic = "force-dynamic";

const query = feedFilterSchema.extend({ after: z.coerce.number().int().min(0).optional(), workspace: z.string().optional() });

/** The world feed as Server-Sent Events: `id` is the workspace's feed sequence; Last-Event-ID resumes exactly after it. */
export const GET = route({ query }, async ({ req, server, workspace, user, query }) => {
  const { after, workspace: _slug, ...filter } = query;
  const lastEventId = Number(req.headers.get("last-event-id"));
  const afterSeq = Number.isInteger(lastEventId) && lastEventId > 0 ? lastEventId : (after ?? 0);
  const abort = new AbortController();
  req.signal.addEventListener("abort", () => abort.abort());
  const items = streamFeed({ db: server.db, bus: server.bus, workspaceId: workspace.id, viewer: { userId: user.id, role: workspace.role }, afterSeq, filter, signal: abort.signal });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(encoder.encode("retry: 2000\n\n"));
      try {
        for await (const next of items) {
          if (next.kind === "heartbeat") controller.enqueue(encoder.encode(": heartbeat\n\n"));
          else controller.enqueue(sseFrame({ id: next.item.seq, event: "feed", data: next.item }));
        }
      } catch (error) {
        try {
          controller.enqueue(streamErrorFrame());
        } catch {
          // The client went away first.
        }
        logError("Feed stream failed", error);
      } finally {
        try {
          controller.close();
        } catch {
          // The client went away first.
        }
      }
    },
    async cancel() {
      abort.abort();
      await items.return(undefined);
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no" } });
});
