import { z } from "zod";
import { route } from "@/lib/http/route";
import { eventStreamResponse, type SseItem } from "@/lib/http/sse";
import { feedFilterSchema, streamFeed } from "@/lib/feed/feed";

export const dynamic = "force-dynamic";

const query = feedFilterSchema.extend({ after: z.coerce.number().int().min(0).optional(), workspace: z.string().optional() });

const doc = { summary: "the world feed as Server-Sent Events; `id` is the workspace's feed sequence, `Last-Event-ID` resumes exactly after it" };

/** The world feed as Server-Sent Events: `id` is the workspace's feed sequence; Last-Event-ID resumes exactly after it. */
export const GET = route({ doc, query }, async ({ req, server, workspace, user, query, stillAllowed }) => {
  const { after, workspace: _slug, ...filter } = query;
  const lastEventId = Number(req.headers.get("last-event-id"));
  const afterSeq = Number.isInteger(lastEventId) && lastEventId > 0 ? lastEventId : (after ?? 0);
  const abort = new AbortController();
  req.signal.addEventListener("abort", () => abort.abort());
  const items = streamFeed({ db: server.db, bus: server.bus, workspaceId: workspace.id, viewer: { userId: user.id, role: workspace.role }, afterSeq, filter, signal: abort.signal });
  async function* frames(): AsyncGenerator<SseItem> {
    for await (const next of items) yield next.kind === "heartbeat" ? next : { kind: "event", id: next.item.seq, event: "feed", data: next.item };
  }
  return eventStreamResponse(frames(), { stillAllowed, onClose: () => abort.abort() });
});
