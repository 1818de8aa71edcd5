import { route } from "@/lib/http/route";
import { eventStreamResponse, type SseItem } from "@/lib/http/sse";
import { followChanges } from "@/lib/db/journal-tail";
import { approvalsTopic, countPendingApprovals } from "@/lib/safety/approvals";

export const dynamic = "force-dynamic";

/** Tells an open inbox that approvals changed (with the pending count); the page refetches what it shows. */
export const GET = route({ doc: { summary: "Server-Sent Events: the pending count, on every change" } }, async ({ req, server, workspace, stillAllowed }) => {
  const abort = new AbortController();
  req.signal.addEventListener("abort", () => abort.abort());
  const counts = followChanges({
    subscribe: (wake) => server.bus.subscribe(approvalsTopic(workspace.id), wake),
    read: () => countPendingApprovals(server.db, workspace.id, workspace.role),
    signal: abort.signal,
  });
  async function* frames(): AsyncGenerator<SseItem> {
    for await (const next of counts) yield next.kind === "heartbeat" ? next : { kind: "event", event: "approvals", data: { pending: next.item } };
  }
  return eventStreamResponse(frames(), { stillAllowed, retryMs: 3000, onClose: () => abort.abort() });
});
