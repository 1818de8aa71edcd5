import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { followEventStream, handOverStream, type StreamMessage, type StreamState } from "@/lib/client/event-stream";

/**
 * followEventStream against a real HTTP server: each connection is answered by
 * the next handler in the script (the last one repeats), and every request's
 * URL and headers are kept.
 */
interface Seen {
  url: string;
  lastEventId: string | undefined;
  workspace: string | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server | null = null;

afterEach(async () => {
  const s = server;
  server = null;
  if (!s) return;
  s.closeAllConnections();
  await new Promise<void>((resolve) => s.close(() => resolve()));
});

async function serve(script: Handler[]): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  let next = 0;
  server = createServer((req, res) => {
    seen.push({
      url: req.url ?? "",
      lastEventId: req.headers["last-event-id"] as string | undefined,
      workspace: req.headers["x-clawdeck-workspace"] as string | undefined,
    });
    const handler = script[Math.min(next, script.length - 1)]!;
    next += 1;
    handler(req, res);
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { base: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const sse = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });
const frame = (event: string, data: unknown, id?: number) => `${id === undefined ? "" : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** Sends the frames (split into small pieces, to cross chunk boundaries) and ends the response. */
function events(frames: string[], { end = true } = {}): Handler {
  return (_req, res) => {
    sse(res);
    const text = frames.join("");
    for (let i = 0; i < text.length; i += 7) res.write(text.slice(i, i + 7));
    if (end) res.end();
  };
}

const refuse =
  (status: number, body: unknown): Handler =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

async function follow(base: string, options: { stopAt?: string; maxAttempts?: number; lastEventId?: string; timeoutMs?: number; handedOver?: string } = {}) {
  const messages: StreamMessage[] = [];
  const states: StreamState[] = [];
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.timeoutMs ?? 5_000);
  let connections = 0;
  await followEventStream({
    url: () => `${base}/stream?n=${++connections}`,
    workspace: "acme",
    signal: abort.signal,
    onMessage: (message) => {
      messages.push(message);
      return message.event === options.stopAt ? "stop" : undefined;
    },
    onState: (state) => states.push(state),
    maxAttempts: options.maxAttempts,
    lastEventId: options.lastEventId,
    handedOver: options.handedOver,
    initialDelayMs: 5,
    maxDelayMs: 40,
  });
  clearTimeout(timer);
  return { messages, states, aborted: abort.signal.aborted };
}

describe("followEventStream", () => {
  it("hands over events in order with their ids, sends the workspace, and ends when the caller stops", async () => {
    const { base, seen } = await serve([events([": heartbeat\n\n", frame("delta", { t: "He" }, 1), frame("delta", { t: "llo" }, 2), frame("done", {}, 3), frame("late", {}, 4)], { end: false })]);
    const { messages, states, aborted } = await follow(base, { stopAt: "done" });
    expect(aborted).toBe(false);
    expect(messages.map((m) => [m.event, m.id, JSON.parse(m.data)])).toEqual([
      ["delta", "1", { t: "He" }],
      ["delta", "2", { t: "llo" }],
      ["done", "3", {}],
    ]);
    expect(states.map((s) => s.status)).toEqual(["connecting", "live", "closed"]);
    expect(seen).toEqual([{ url: "/stream?n=1", lastEventId: undefined, workspace: "acme" }]);
  });

  it("reconnects after a drop with Last-Event-ID and a fresh URL, and nothing is handed over twice by the client", async () => {
    const { base, seen } = await serve([events([frame("delta", { t: "a" }, 1), frame("delta", { t: "b" }, 2)]), events([frame("delta", { t: "c" }, 3), frame("done", {}, 4)])]);
    const { messages, states } = await follow(base, { stopAt: "done" });
    expect(messages.map((m) => m.id)).toEqual(["1", "2", "3", "4"]);
    expect(seen.map((s) => [s.url, s.lastEventId])).toEqual([
      ["/stream?n=1", undefined],
      ["/stream?n=2", "2"],
    ]);
    expect(states.map((s) => s.status)).toEqual(["connecting", "live", "reconnecting", "live", "closed"]);
  });

  it("reads a stream handed over by the request that opened it as its first connection, then resumes after it by a request", async () => {
    const { base, seen } = await serve([events([frame("delta", { t: "a" }, 1), frame("delta", { t: "b" }, 2)]), events([frame("delta", { t: "c" }, 3), frame("done", {}, 4)])]);
    handOverStream("run:acme:1", await fetch(`${base}/start`, { method: "POST" }));
    const { messages, states } = await follow(base, { stopAt: "done", handedOver: "run:acme:1" });
    expect(messages.map((m) => [m.id, m.data])).toEqual([
      ["1", '{"t":"a"}'],
      ["2", '{"t":"b"}'],
      ["3", '{"t":"c"}'],
      ["4", "{}"],
    ]);
    // The handed stream was not asked for again: the only request after it resumes after its last id.
    expect(seen.map((s) => [s.url, s.lastEventId])).toEqual([
      ["/start", undefined],
      ["/stream?n=1", "2"],
    ]);
    expect(states.map((s) => s.status)).toEqual(["connecting", "live", "reconnecting", "live", "closed"]);
  });

  it("closes a handed-over stream when its follower stops, and one nobody takes after its time", async () => {
    const closed: string[] = [];
    const held: Handler = (req, res) => {
      res.on("close", () => closed.push(req.url ?? ""));
      events([frame("delta", {}, 1), frame("done", {}, 2)], { end: false })(req, res);
    };
    const { base } = await serve([held]);
    handOverStream("taken", await fetch(`${base}/taken`));
    const { messages } = await follow(base, { stopAt: "done", handedOver: "taken" });
    expect(messages.map((m) => m.event)).toEqual(["delta", "done"]);
    handOverStream("left", await fetch(`${base}/left`), 50);
    await expect.poll(() => [...closed].sort(), { timeout: 2_000 }).toEqual(["/left", "/taken"]);
    // Taken or expired, a key hands nothing over twice: a follower asking again makes a request.
    const again = await follow(base, { stopAt: "done", handedOver: "left" });
    expect(again.messages.map((m) => m.event)).toEqual(["delta", "done"]);
  });

  it("starts from the id it is given", async () => {
    const { base, seen } = await serve([events([frame("done", {}, 8)])]);
    await follow(base, { stopAt: "done", lastEventId: "7" });
    expect(seen[0]!.lastEventId).toBe("7");
  });

  it("stops at a refusal with the server's code and does not ask again", async () => {
    const { base, seen } = await serve([refuse(403, { code: "forbidden:run", message: "This run is private." })]);
    const { states, messages } = await follow(base);
    expect(messages).toEqual([]);
    expect(seen).toHaveLength(1);
    const last = states.at(-1)!;
    expect(last.status).toBe("failed");
    expect(last.status === "failed" && [last.error.code, last.error.message]).toEqual(["forbidden:run", "This run is private."]);
  });

  it.each([
    [503, { code: "unavailable:database", message: "Busy." }, "unavailable:database"],
    [429, { code: "rate_limited:streams", message: "Too many streams." }, "rate_limited:streams"],
    [408, "", "unavailable:stream"],
    [502, "<html>bad gateway</html>", "internal:response"],
  ])("retries after HTTP %i", async (status, body, code) => {
    const { base, seen } = await serve([refuse(status, body), events([frame("done", {}, 1)])]);
    const { states, messages } = await follow(base, { stopAt: "done" });
    expect(messages.map((m) => m.event)).toEqual(["done"]);
    expect(seen).toHaveLength(2);
    const reconnecting = states.find((s) => s.status === "reconnecting");
    expect(reconnecting?.status === "reconnecting" && reconnecting.error?.code).toBe(code);
  });

  it("reconnects after a stream_error the server can recover from, and reports it meanwhile", async () => {
    const { base, seen } = await serve([
      events([frame("delta", {}, 1), frame("stream_error", { code: "unavailable:stream", message: "The event stream was interrupted." })], { end: false }),
      events([frame("done", {}, 2)]),
    ]);
    const { states, messages } = await follow(base, { stopAt: "done" });
    expect(messages.map((m) => m.event)).toEqual(["delta", "done"]);
    expect(seen[1]!.lastEventId).toBe("1");
    const reconnecting = states.find((s) => s.status === "reconnecting");
    expect(reconnecting?.status === "reconnecting" && reconnecting.error?.message).toBe("The event stream was interrupted.");
  });

  it("ends at a stream_error that asking again would not change (session ended)", async () => {
    const { base, seen } = await serve([events([frame("stream_error", { code: "unauthorized:session", message: "Your session ended." })], { end: false })]);
    const { states } = await follow(base);
    expect(seen).toHaveLength(1);
    const last = states.at(-1)!;
    expect(last.status === "failed" && last.error.code).toBe("unauthorized:session");
  });

  it("gives up after maxAttempts silent reconnects, with backoff that grows and is capped", async () => {
    const { base, seen } = await serve([refuse(503, { code: "unavailable:stream", message: "Down." })]);
    const { states } = await follow(base, { maxAttempts: 6 });
    expect(seen).toHaveLength(7);
    const delays = states.flatMap((s) => (s.status === "reconnecting" ? [s.delayMs] : []));
    expect(delays).toHaveLength(6);
    // Steps 5, 10, 20, 40, 40, 40 ms; each delay is between half a step and a whole one.
    [5, 10, 20, 40, 40, 40].forEach((step, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(Math.round(step / 2));
      expect(delays[i]).toBeLessThanOrEqual(step);
    });
    const last = states.at(-1)!;
    expect(last.status === "failed" && last.error.code).toBe("unavailable:stream");
  });

  it("counts attempts again from one once a connection has said something", async () => {
    const { base } = await serve([
      refuse(503, {}),
      refuse(503, {}),
      events([": heartbeat\n\n"]),
      refuse(503, {}),
      events([frame("done", {}, 1)]),
    ]);
    // Without the reset the fourth connection would be a third silent attempt, over the limit.
    const { states } = await follow(base, { stopAt: "done", maxAttempts: 2 });
    expect(states.flatMap((s) => (s.status === "reconnecting" ? [s.attempt] : []))).toEqual([1, 2, 1, 2]);
    expect(states.at(-1)!.status).toBe("closed");
  });

  it("takes the server's retry as the first wait", async () => {
    const { base } = await serve([events(["retry: 30\n\n"]), events([frame("done", {}, 1)])]);
    const { states } = await follow(base, { stopAt: "done" });
    const reconnecting = states.find((s) => s.status === "reconnecting");
    expect(reconnecting?.status === "reconnecting" && reconnecting.delayMs).toBeGreaterThanOrEqual(15);
  });

  it("ends quietly when aborted while waiting to reconnect", async () => {
    const { base } = await serve([refuse(503, {})]);
    const started = Date.now();
    const { aborted, states } = await follow(base, { timeoutMs: 100 });
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(states.some((s) => s.status === "failed" || s.status === "closed")).toBe(false);
  });
});
