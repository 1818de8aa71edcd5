import { AppError, STREAM_ERROR_EVENT } from "../errors";
import type { StreamItem } from "../runtime/stream";
import { logError } from "../log";

const encoder = new TextEncoder();

/** One Server-Sent Event; `data` is JSON on a single line. */
export function sseFrame(event: { id?: number | string; event?: string; data: unknown }): Uint8Array {
  let frame = "";
  if (event.id !== undefined) frame += `id: ${event.id}\n`;
  if (event.event) frame += `event: ${event.event}\n`;
  frame += `data: ${JSON.stringify(event.data)}\n\n`;
  return encoder.encode(frame);
}

/** The frame a stream sends when it fails (see STREAM_ERROR_EVENT); the stream ends after it. */
export function streamErrorFrame(error: AppError = new AppError("unavailable:stream", "The event stream was interrupted.")): Uint8Array {
  return sseFrame({ event: STREAM_ERROR_EVENT, data: error.toJSON() });
}

/**
 * Streams journal items as SSE: `id` is the sequence (so the browser's
 * Last-Event-ID resumes exactly there), `event` the type, `data` the payload.
 */
export function sseResponse(items: AsyncGenerator<StreamItem>, onClose?: () => void): Response {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      // Tell EventSource to wait 2 s before reconnecting after a drop.
      controller.enqueue(encoder.encode("retry: 2000\n\n"));
      try {
        for await (const item of items) {
          if (item.kind === "heartbeat") controller.enqueue(encoder.encode(": heartbeat\n\n"));
          else controller.enqueue(sseFrame({ id: item.event.seq, event: item.event.type, data: { ...item.event.payload, seq: item.event.seq, at: item.event.at } }));
        }
      } catch (error) {
        try {
          controller.enqueue(streamErrorFrame());
        } catch {
          // The client went away first.
        }
        logError("Event stream failed", error);
      } finally {
        onClose?.();
        try {
          controller.close();
        } catch {
          // Already closed by the client going away.
        }
      }
    },
    async cancel() {
      await items.return(undefined);
      onClose?.();
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    },
  });
}
