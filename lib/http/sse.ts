import { AppError, STREAM_ERROR_EVENT } from "../errors";
import type { StreamItem } from "../runtime/stream";
import { logError } from "../log";
import type { AccessCheck } from "./route";

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

declare const eventStream: unique symbol;
/** A response whose body is an event stream: a route that answers JSON may answer with one instead, when asked. */
export type EventStreamReply = Response & { readonly [eventStream]: true };

/** What an event stream sends: an event, or a comment that keeps the connection (and the access check) alive. */
export type SseItem = { kind: "event"; id?: number | string; event: string; data: unknown } | { kind: "heartbeat" };

export interface EventStreamOptions {
  /**
   * Asked again every `everyMs` while the stream is open (on a timer, whether or not anything is sent, and before an
   * item when the last check is that old): when the session was ended or the access taken away, the stream says so
   * and ends within that interval, and the browser's reconnect is refused like any request.
   */
  stillAllowed?: AccessCheck;
  /** How long EventSource waits before reconnecting after a drop. */
  retryMs?: number;
  onClose?: () => void;
  /** Headers the response carries besides the stream's own. */
  headers?: Record<string, string>;
}

export const SESSION_ENDED = () => new AppError("unauthorized:session", "Your session ended or your access changed. Sign in again to follow this.");

/**
 * The one way the server streams events: every stream route builds its items and hands them here.
 *
 * Frames ready together (a journal flush hands a stream several events at once) go to the client as one chunk: they
 * are gathered while the items that are already there are read, and sent when the event loop next turns, so a busy
 * server writes once per batch instead of once per event, and an idle one sends each event at once.
 */
export function eventStreamResponse(items: AsyncGenerator<SseItem>, options: EventStreamOptions = {}): EventStreamReply {
  const recheckMs = options.stillAllowed?.everyMs ?? 0;
  let closed = false;
  // Set when the client goes away: writes after that fail, and that is no failure of the stream.
  let cancelled = false;
  const close = () => {
    if (closed) return;
    closed = true;
    options.onClose?.();
  };
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let pending: Uint8Array[] = [];
      let scheduled: NodeJS.Immediate | null = null;
      const flush = () => {
        scheduled = null;
        if (pending.length === 0) return;
        const chunks = pending;
        pending = [];
        try {
          controller.enqueue(chunks.length === 1 ? chunks[0]! : joined(chunks));
        } catch {
          // The client went away meanwhile.
        }
      };
      const send = (chunk: Uint8Array) => {
        pending.push(chunk);
        scheduled ??= setImmediate(flush);
      };
      send(encoder.encode(`retry: ${options.retryMs ?? 2000}\n\n`));
      let checkedAt = Date.now();
      // A quiet stream is checked on a timer too: waiting for its next item (a heartbeat every 15 s) would let it
      // outlive a sign-out by that long. A refusal ends the wait for the item.
      let refused: () => void = () => undefined;
      const ended = new Promise<"refused">((resolve) => (refused = () => resolve("refused")));
      const allowed = options.stillAllowed;
      const timer =
        allowed && recheckMs > 0
          ? setInterval(() => {
              checkedAt = Date.now();
              allowed().then(
                (ok) => (ok ? undefined : refused()),
                () => undefined,
              );
            }, recheckMs)
          : null;
      timer?.unref();
      let waiting: Promise<IteratorResult<SseItem>> | null = null;
      try {
        for (;;) {
          waiting = items.next();
          const next = await Promise.race([waiting, ended]);
          if (next === "refused") {
            send(streamErrorFrame(SESSION_ENDED()));
            break;
          }
          waiting = null;
          if (next.done) break;
          const item = next.value;
          if (allowed && Date.now() - checkedAt >= recheckMs) {
            checkedAt = Date.now();
            if (!(await allowed())) {
              send(streamErrorFrame(SESSION_ENDED()));
              break;
            }
          }
          if (item.kind === "heartbeat") send(encoder.encode(": heartbeat\n\n"));
          else send(sseFrame(item));
        }
      } catch (error) {
        if (!cancelled) {
          send(streamErrorFrame());
          logError("Event stream failed", error);
        }
      } finally {
        if (timer) clearInterval(timer);
        // Left while an item was awaited (a refusal): the items end once that wait is over.
        if (waiting) void waiting.then(() => items.return(undefined)).catch(() => undefined);
        else if (!cancelled) await items.return(undefined).catch(() => undefined);
        if (scheduled) clearImmediate(scheduled);
        flush();
        close();
        try {
          controller.close();
        } catch {
          // Already closed by the client going away.
        }
      }
    },
    async cancel() {
      cancelled = true;
      await items.return(undefined);
      close();
    },
  });
  return new Response(body, {
    headers: {
      ...options.headers,
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    },
  }) as EventStreamReply;
}

function joined(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * Starts `items` at once (a journal stream's subscription and first read) while `allowed` is decided, and hands them
 * over only once it passed: one round trip less before a stream's first event, and a refused reader receives
 * nothing. On a refusal `stop` ends the stream, so its subscription is released, and the refusal is thrown.
 */
export async function handOverWhen<T>(items: AsyncGenerator<T>, allowed: Promise<void>, stop: AbortController): Promise<AsyncGenerator<T>> {
  const first = items.next();
  // A first read that fails while the check is still out is not left unhandled: it is thrown to whoever awaits
  // `first` below (the stream, which sends its error frame), or goes to nobody when the request was refused.
  const read = first.then(
    () => true,
    () => false,
  );
  try {
    await allowed;
  } catch (error) {
    stop.abort();
    void read.then((ok) => (ok ? items.return(undefined) : undefined));
    throw error;
  }
  return (async function* () {
    try {
      const head = await first;
      if (head.done) return;
      yield head.value;
      yield* items;
    } finally {
      await items.return(undefined);
    }
  })();
}

/**
 * A run's journal as SSE: `id` is the sequence (so the browser's
 * Last-Event-ID resumes exactly there), `event` the type, `data` the payload.
 */
export function sseResponse(items: AsyncGenerator<StreamItem>, options: EventStreamOptions = {}): EventStreamReply {
  async function* frames(): AsyncGenerator<SseItem> {
    try {
      for await (const item of items) {
        if (item.kind === "heartbeat") yield item;
        else yield { kind: "event", id: item.event.seq, event: item.event.type, data: { ...item.event.payload, seq: item.event.seq, at: item.event.at } };
      }
    } finally {
      await items.return(undefined);
    }
  }
  return eventStreamResponse(frames(), options);
}
