import { route } from "@/lib/http/route";
import { sseFrame, streamErrorFrame } from "@/lib/http/sse";
import { approvalsTopic, countPendingApprovals } from "@/lib/safety/approvals";
import { logError } from "@/lib/log";

export const dynamic = "force-dynamic";

/** Tells an open inbox that approvals changed (with the pending count); the page refetches what it shows. */
export const GET = route({}, async ({ req, server, workspace }) => {
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = async () => {
        try {
          controller.enqueue(sseFrame({ event: "approvals", data: { pending: await countPendingApprovals(server.db, workspace.id) } }));
        } catch (error) {
          try {
            controller.enqueue(streamErrorFrame());
            logError("Approvals stream failed", error);
          } catch {
            // The client went away: nothing to tell.
          }
          cleanup();
        }
      };
      const unsubscribe = server.bus.subscribe(approvalsTopic(workspace.id), () => void send());
      const heartbeat = setInterval(() => {
        try {
          controller.enqueue(new TextEncoder().encode(": heartbeat\n\n"));
        } catch {
          cleanup();
        }
      }, 15_000);
      cleanup = () => {
        unsubscribe();
        clearInterval(heartbeat);
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      };
      req.signal.addEventListener("abort", () => cleanup());
      controller.enqueue(new TextEncoder().encode("retry: 3000\n\n"));
      await send();
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no" } });
});
