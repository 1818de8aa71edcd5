import fs from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { Duplex } from "node:stream";
import { checkedAddress, FetchRefusedError, type SafeLookup } from "../net/safe-fetch";

/**
 * The only way out of a sandbox that may use the network: an HTTP proxy in
 * the server, reached through a Unix socket mounted into the sandbox (whose
 * own network namespace has nothing but a loopback). Every connection is
 * checked when it is made, by the rules of `http.fetch`: no loopback,
 * private, link-local or metadata address unless the operator's allow-list
 * names it. HTTPS goes through `CONNECT` (the proxy sees the host, never the
 * content); plain HTTP is forwarded request by request.
 *
 * The proxy counts what it let through: the hosts a command reached taint
 * the run with `web:<host>`, and the refusals are told to the model.
 */

export interface EgressOptions {
  /** The operator's allow-list (`CLAWDECK_FETCH_ALLOW`). */
  allow: readonly string[];
  lookup?: SafeLookup;
  /** Connections open at once; past it a new one is refused. */
  maxConnections?: number;
}

export interface EgressProxy {
  /** The Unix socket to mount into the sandbox. */
  socketPath: string;
  /** Hosts the command reached (names as it asked for them). */
  hosts(): string[];
  /** Each refusal: the host asked for (as asked), and the sentence saying why. */
  refusals(): { host: string; sentence: string }[];
  close(): Promise<void>;
}

const MAX_CONNECTIONS = 64;
/** A connection with no traffic for this long is closed. */
const IDLE_MS = 60_000;
const HOP_HEADERS = ["proxy-connection", "proxy-authorization", "connection", "keep-alive", "te", "trailer", "upgrade"];

/** Opens a proxy on a new Unix socket (in a private folder of its own, with a path short enough for a socket). */
export async function openEgressProxy(options: EgressOptions): Promise<EgressProxy> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "clawdeck-egress-"));
  // The sandbox's own host user must reach the socket; no one may list the folder.
  await fs.promises.chmod(dir, 0o711);
  const socketPath = path.join(dir, "proxy.sock");
  const reached = new Set<string>();
  const refused: { host: string; sentence: string }[] = [];
  const open = new Set<Duplex>();
  const limit = options.maxConnections ?? MAX_CONNECTIONS;

  const track = (socket: Duplex) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  };

  /** Where a connection may go, or the sentence saying why not. */
  async function destination(host: string, port: number): Promise<{ address: string } | { refusal: string }> {
    const name = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
    if (open.size > limit) return { refusal: `Refused to connect to ${host}:${port}: the command has ${limit} connections open already.` };
    try {
      const { address } = await checkedAddress(name, port, { allow: options.allow, lookup: options.lookup });
      reached.add(name);
      return { address };
    } catch (error) {
      const why = error instanceof FetchRefusedError ? error.detail : `the name could not be resolved (${(error as NodeJS.ErrnoException).code ?? "error"})`;
      const sentence = `Refused to connect to ${host}:${port}: ${why}.`;
      if (refused.length < 100) refused.push({ host: name, sentence });
      return { refusal: sentence };
    }
  }

  const server = http.createServer((req, res) => void forward(req, res));
  server.on("connection", track);
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => void tunnel(req, client, head));
  server.on("clientError", (_error, socket) => socket.destroy());

  async function tunnel(req: IncomingMessage, client: Duplex, head: Buffer) {
    const target = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(req.url ?? "");
    const port = Number(target?.[2]);
    if (!target || port < 1 || port > 65535) {
      client.end("HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\r\nCONNECT needs host:port.\n");
      return;
    }
    const to = await destination(target[1]!, port);
    if ("refusal" in to) {
      client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${to.refusal}\n`);
      return;
    }
    const upstream = net.connect({ host: to.address, port });
    track(upstream);
    upstream.setTimeout(IDLE_MS, () => upstream.destroy());
    upstream.once("connect", () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once("error", (error: NodeJS.ErrnoException) => {
      if (!client.writableEnded && upstream.connecting !== false) {
        client.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\n\r\nCould not connect to ${req.url}: ${error.code ?? error.message}.\n`);
      } else client.destroy();
    });
    client.once("error", () => upstream.destroy());
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
  }

  async function forward(req: IncomingMessage, res: ServerResponse) {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return plain(res, 400, "The proxy takes absolute http:// URLs (and CONNECT for https).");
    }
    if (url.protocol !== "http:") return plain(res, 400, `The proxy forwards http:// requests; use CONNECT for ${url.protocol}//.`);
    const port = url.port ? Number(url.port) : 80;
    const to = await destination(url.hostname, port);
    if ("refusal" in to) return plain(res, 403, to.refusal);
    const headers = { ...req.headers };
    for (const name of HOP_HEADERS) delete headers[name];
    const upstream = http.request({ host: to.address, port, method: req.method, path: `${url.pathname}${url.search}`, headers, setHost: false, agent: false });
    upstream.setTimeout(IDLE_MS, () => upstream.destroy(new Error("timed out")));
    upstream.once("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.once("error", (error: NodeJS.ErrnoException) => {
      if (!res.headersSent) plain(res, 502, `Could not reach ${url.host}: ${error.code ?? error.message}.`);
      else res.destroy();
    });
    req.pipe(upstream);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  await fs.promises.chmod(socketPath, 0o666);

  return {
    socketPath,
    hosts: () => [...reached],
    refusals: () => [...refused],
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}

function plain(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  res.end(`${text}\n`);
}
