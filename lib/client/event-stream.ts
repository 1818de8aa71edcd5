import { EventSourceParserStream } from "eventsource-parser/stream";
import { AppError, STREAM_ERROR_EVENT, streamErrorFromData } from "../errors";
import { WORKSPACE_HEADER } from "./api";

/**
 * The one way the browser reads a server event stream (runs, the feed,
 * missions, the approvals count): `fetch` and a maintained SSE parser rather
 * than `EventSource`, so that every stream reconnects the same way, sends the
 * workspace header, and can tell a refusal from a dropped connection.
 *
 * - Each connection sends `Last-Event-ID` with the id of the last event
 *   handed over, so the server continues exactly after it; `url()` is asked
 *   again on every connection, so a caller's `after=` can follow its cursor.
 * - A dropped connection, a 5xx, a 408 or 429, and a `stream_error` of kind
 *   `unavailable` or `internal` are reconnected after a capped, jittered
 *   backoff (starting at the server's `retry:`), forever unless `maxAttempts`
 *   says otherwise; the attempt count resets once the new connection says
 *   anything (an event or a heartbeat).
 * - Any other 4xx, or a `stream_error` of a client kind (session ended,
 *   access taken away, not found), ends the stream: asking again would get
 *   the same answer.
 */

export type StreamState =
  /** Opening the first connection. */
  | { status: "connecting" }
  /** Connected; events flow. */
  | { status: "live" }
  /** Lost; trying again in `delayMs`. `error` is what the server said, when it said something. */
  | { status: "reconnecting"; attempt: number; delayMs: number; error: AppError | null }
  /** The caller asked to stop (its last event arrived). */
  | { status: "closed" }
  /** Refused, or out of attempts; not retried. */
  | { status: "failed"; error: AppError };

export interface StreamMessage {
  /** The SSE event name (`message` when the server sent none). */
  event: string;
  data: string;
  id: string | undefined;
}

export interface FollowOptions {
  /** The stream's address; asked again before every connection. */
  url: () => string;
  /** Sent as the workspace header. */
  workspace?: string;
  /**
   * Each event, in order, once. Returning `"stop"` ends the stream (a run's
   * terminal event). `stream_error` frames are not handed here.
   */
  onMessage: (message: StreamMessage) => "stop" | void;
  onState?: (state: StreamState) => void;
  /** Ends the stream and any wait between connections. */
  signal: AbortSignal;
  /** The id to resume after on the first connection (`Last-Event-ID`). */
  lastEventId?: string;
  /**
   * The key of a stream already open (`handOverStream`): when it is there, the
   * first connection is that response instead of a request, and later ones are
   * requests to `url()` as usual.
   */
  handedOver?: string;
  /** Give up (state `failed`) after this many reconnects in a row without a word from the server. Default: never. */
  maxAttempts?: number;
  /** Longest wait between connections. */
  maxDelayMs?: number;
  /** Wait before the first reconnect until the server sends `retry:`. */
  initialDelayMs?: number;
  /** For tests: the fetch to use and the source of jitter. */
  fetch?: typeof fetch;
  random?: () => number;
}

/** Streams opened by the request that started what they follow, until their follower takes them. */
const handed = new Map<string, { response: Response; timer: ReturnType<typeof setTimeout> }>();

/**
 * Keeps an open event stream (the answer to a chat message, which carries the
 * reply's events) for the follower that asks for it by `key` (`handedOver`),
 * so the events need no second request. One not taken within `ttlMs` (its page
 * went away) is closed.
 */
export function handOverStream(key: string, response: Response, ttlMs = 10_000): void {
  takeHandedStream(key)?.body?.cancel().catch(() => undefined);
  const timer = setTimeout(() => {
    if (handed.get(key)?.response === response) handed.delete(key);
    response.body?.cancel().catch(() => undefined);
  }, ttlMs);
  handed.set(key, { response, timer });
}

function takeHandedStream(key: string | undefined): Response | undefined {
  const entry = key === undefined ? undefined : handed.get(key);
  if (!entry || key === undefined) return undefined;
  handed.delete(key);
  clearTimeout(entry.timer);
  return entry.response;
}

/** Whether an error is worth connecting again for: the server or the network, not the request. */
function retriable(error: AppError): boolean {
  return error.kind === "unavailable" || error.kind === "internal" || error.kind === "rate_limited";
}

function errorOfResponse(status: number, body: unknown): AppError {
  if (status === 408) return new AppError("unavailable:stream", "The event stream timed out.");
  return AppError.fromBody(body, status);
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

type Outcome = { end: "stop" } | { end: "drop"; error: AppError | null; heard: boolean } | { end: "refused"; error: AppError };

/**
 * Follows a stream until the caller stops it, the signal aborts, or the
 * server refuses it. Resolves when it has ended; never rejects.
 */
export async function followEventStream(options: FollowOptions): Promise<void> {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const random = options.random ?? Math.random;
  const maxDelayMs = options.maxDelayMs ?? 15_000;
  let baseDelayMs = options.initialDelayMs ?? 1_000;
  let lastEventId = options.lastEventId;
  let attempt = 0;
  const report = (state: StreamState) => {
    if (!options.signal.aborted) options.onState?.(state);
  };

  let handedOver = takeHandedStream(options.handedOver);

  async function request(): Promise<Response | null> {
    const headers: Record<string, string> = { accept: "text/event-stream" };
    if (options.workspace) headers[WORKSPACE_HEADER] = options.workspace;
    if (lastEventId) headers["last-event-id"] = lastEventId;
    try {
      return await fetchImpl(options.url(), { headers, credentials: "same-origin", cache: "no-store", signal: options.signal });
    } catch {
      return null;
    }
  }

  async function connect(): Promise<Outcome> {
    const response = handedOver ?? (await request());
    handedOver = undefined;
    if (!response) return { end: "drop", error: null, heard: false };
    if (!response.ok || !response.body) {
      const body: unknown = await response.json().catch(() => undefined);
      const error = errorOfResponse(response.status, body);
      return retriable(error) ? { end: "drop", error, heard: false } : { end: "refused", error };
    }
    report({ status: "live" });
    let heard = false;
    const messages = response.body
      .pipeThrough(new TextDecoderStream())
      .pipeThrough(
        new EventSourceParserStream({
          onRetry: (ms) => {
            if (ms > 0) baseDelayMs = Math.min(ms, maxDelayMs);
          },
          onComment: () => {
            heard = true;
          },
        }),
      );
    const reader = messages.getReader();
    // A request's body ends with the signal; a handed-over one is ended here.
    const release = () => void reader.cancel().catch(() => undefined);
    options.signal.addEventListener("abort", release, { once: true });
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return { end: "drop", error: null, heard };
        heard = true;
        if (value.event === STREAM_ERROR_EVENT) {
          const error = streamErrorFromData(value.data);
          return retriable(error) ? { end: "drop", error, heard } : { end: "refused", error };
        }
        if (value.id) lastEventId = value.id;
        if (options.onMessage({ event: value.event ?? "message", data: value.data, id: value.id }) === "stop") return { end: "stop" };
      }
    } catch {
      return { end: "drop", error: null, heard };
    } finally {
      options.signal.removeEventListener("abort", release);
      await reader.cancel().catch(() => undefined);
    }
  }

  report({ status: "connecting" });
  while (!options.signal.aborted) {
    const outcome = await connect();
    if (options.signal.aborted) return;
    if (outcome.end === "stop") return report({ status: "closed" });
    if (outcome.end === "refused") return report({ status: "failed", error: outcome.error });
    attempt = outcome.heard ? 1 : attempt + 1;
    if (options.maxAttempts !== undefined && attempt > options.maxAttempts) {
      return report({ status: "failed", error: outcome.error ?? new AppError("unavailable:stream", "Lost the connection to the server.") });
    }
    // Capped exponential backoff with jitter: half the step fixed, half random, so many browsers do not return at once.
    const step = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    const delayMs = Math.round(step / 2 + (random() * step) / 2);
    report({ status: "reconnecting", attempt, delayMs, error: outcome.error });
    await wait(delayMs, options.signal);
  }
  // Stopped before its first connection: a stream handed over is not left open.
  await handedOver?.body?.cancel().catch(() => undefined);
}
