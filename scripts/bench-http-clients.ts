// The benchmark's HTTP clients: sign-in, a chat message whose answer carries its reply, followers of a run's events
// route (a real EventSource client) and of the workspace's live feed.
import crypto from "node:crypto";
import { EventSource } from "eventsource";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { RUN_ID_HEADER } from "../lib/chats/chat-schemas";

export const OWNER = { email: "bench@clawdeck.local", password: crypto.randomBytes(12).toString("hex") };

function cookiesOf(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(";")[0]!);
}

export async function signIn(origin: string): Promise<string> {
  const csrf = await fetch(`${origin}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${origin}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookiesOf(csrf).join("; "), "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams({ email: OWNER.email, password: OWNER.password, csrfToken, callbackUrl: "/" }),
  });
  const session = cookiesOf(res).find((c) => c.startsWith("authjs.session-token=") && c.length > 21);
  if (!session) throw new Error(`Sign-in failed (${res.status})`);
  return session;
}

export async function api(origin: string, cookie: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${origin}${path}`, {
    method: "POST",
    headers: { cookie, origin, "content-type": "application/json", "x-clawdeck-workspace": "demo" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

export interface Follow {
  /** Client receive time − the event's journal time, per text event journaled after the stream opened. */
  latencies: number[];
  firstTextAt: number | null;
  openedAt: number | null;
  endAt: number | null;
  text: string;
  lastSeq: number;
  seqProblem: boolean;
  /** Text events received, live or replayed (a stream that opens after its run ended receives them all replayed). */
  texts: number;
}

const TERMINAL = new Set(["run_completed", "run_failed", "run_cancelled"]);
const OTHER_EVENTS = ["run_started", "usage", "thinking", "step_started", "step_finished", "dispatch_started", "dispatch_finished"];

/** Records one client's events of a run; `seen` returns whether the run ended. */
function tracker(result: Follow) {
  const seen = (type: string, raw: string, now: number): boolean => {
    const data = JSON.parse(raw) as { seq: number; at: string; delta?: string };
    if (data.seq <= result.lastSeq) return false; // a reconnect replays nothing twice
    if (data.seq !== result.lastSeq + 1) result.seqProblem = true;
    result.lastSeq = data.seq;
    if (type === "text") {
      result.firstTextAt ??= now;
      result.texts += 1;
      result.text += data.delta ?? "";
      // Live deltas only: one journaled before this client's stream opened was replayed, not delivered live.
      const at = Date.parse(data.at);
      if (result.openedAt !== null && at >= result.openedAt) result.latencies.push(now - at);
    }
    if (!TERMINAL.has(type)) return false;
    result.endAt = now;
    return true;
  };
  return seen;
}

function emptyFollow(): Follow {
  return { latencies: [], firstTextAt: null, openedAt: null, endAt: null, text: "", lastSeq: 0, seqProblem: false, texts: 0 };
}

/** Follows one run with a real EventSource client on its events route until its terminal event. */
export function follow(origin: string, cookie: string, runId: string, signal: AbortSignal): Promise<Follow> {
  const result = emptyFollow();
  const seen = tracker(result);
  return new Promise((resolve) => {
    const source = new EventSource(`${origin}/api/runs/${runId}/events?workspace=demo`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, cookie } }),
    });
    const done = () => {
      source.close();
      signal.removeEventListener("abort", done);
      resolve(result);
    };
    signal.addEventListener("abort", done);
    source.addEventListener("open", () => (result.openedAt ??= Date.now()));
    for (const type of ["text", ...OTHER_EVENTS, ...TERMINAL]) {
      source.addEventListener(type, (event) => {
        if (seen(type, event.data as string, Date.now())) done();
      });
    }
  });
}

/**
 * Sends a chat message asking for its answer as an event stream, as the chat page does, and follows the reply on
 * that answer (parsed with the same SSE parser as the page) until its terminal event.
 */
export async function sendAndFollow(
  origin: string,
  cookie: string,
  sessionId: string,
  text: string,
  signal: AbortSignal,
): Promise<{ runId: string; answeredAt: number; follow: Promise<Follow> }> {
  const res = await fetch(`${origin}/api/sessions/${sessionId}/messages`, {
    method: "POST",
    headers: { cookie, origin, accept: "text/event-stream", "content-type": "application/json", "x-clawdeck-workspace": "demo" },
    body: JSON.stringify({ text }),
    signal,
  });
  const runId = res.headers.get(RUN_ID_HEADER);
  if (!res.ok || !res.body || !runId) throw new Error(`POST /api/sessions/${sessionId}/messages: ${res.status} ${await res.text()}`);
  const answeredAt = Date.now();
  const result = emptyFollow();
  result.openedAt = answeredAt;
  const seen = tracker(result);
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const followed = (async () => {
    const reader = events.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || (value.event && seen(value.event, value.data, Date.now()))) break;
      }
    } catch {
      // Aborted at the pass's limit: what was received is the result.
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    return result;
  })();
  return { runId, answeredAt, follow: followed };
}

interface FeedFollow {
  latencies: number[];
  openedAt: number | null;
  lastSeq: number;
  seqProblem: boolean;
  finished: Set<string>;
  complete: boolean;
}

/**
 * Follows the workspace's live feed with a real EventSource client (from its first item) until it has seen every
 * given run's `run_finished` item. Latency: receipt − the item's time, for items written after the stream opened.
 */
export function followFeed(origin: string, cookie: string, runIds: Promise<string[]>, signal: AbortSignal): Promise<FeedFollow> {
  const result: FeedFollow = { latencies: [], openedAt: null, lastSeq: 0, seqProblem: false, finished: new Set(), complete: false };
  return new Promise((resolve) => {
    const source = new EventSource(`${origin}/api/feed/events?workspace=demo`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, cookie } }),
    });
    let wanted: string[] | null = null;
    const done = () => {
      source.close();
      signal.removeEventListener("abort", done);
      resolve(result);
    };
    const check = () => {
      if (wanted && wanted.every((id) => result.finished.has(id))) {
        result.complete = true;
        done();
      }
    };
    signal.addEventListener("abort", done);
    void runIds.then((ids) => {
      wanted = ids;
      check();
    });
    source.addEventListener("open", () => (result.openedAt ??= Date.now()));
    source.addEventListener("feed", (event) => {
      const now = Date.now();
      const item = JSON.parse(event.data as string) as { seq: number; at: string; kind: string; runId: string | null };
      if (item.seq <= result.lastSeq) return;
      if (item.seq !== result.lastSeq + 1) result.seqProblem = true;
      result.lastSeq = item.seq;
      const at = Date.parse(item.at);
      if (result.openedAt !== null && at >= result.openedAt) result.latencies.push(now - at);
      if (item.kind === "run_finished" && item.runId) result.finished.add(item.runId);
      check();
    });
  });
}

