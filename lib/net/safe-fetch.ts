import dns, { type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import net, { type LookupFunction } from "node:net";
import { pipeline, type Readable } from "node:stream";
import zlib from "node:zlib";
import { cidr, describeAddress, embeddedIpv4, inCidr, isBlockedAddress, parseIp, type BlockedAddressReason, type Cidr } from "./addresses";

/**
 * Server-side fetch for URLs chosen by someone else (a model, a user). It refuses
 * destinations inside the network the server runs in: every address is checked
 * where the socket gets it (the `lookup` of node:http), so a name that resolves
 * to a public address when asked once and to a private one when connected
 * (DNS rebinding) is still refused, and so is every redirect hop.
 */

/**
 * The operator's allow-list (`CLAWDECK_FETCH_ALLOW`: comma-separated hosts,
 * `host:port` or CIDR ranges), read once with the validated environment; the
 * runtime hands it to every tool that fetches.
 */
export function fetchAllowList(setting: string): string[] {
  return setting
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** A resolver with the shape of `dns.lookup(hostname, { all: true }, callback)`. */
export type SafeLookup = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

export type SafeFetchMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface SafeFetchOptions {
  /** Destinations allowed even though private: `host`, `host:port`, `[v6]:port` or CIDR ranges (`10.0.0.0/8`). */
  allow?: readonly string[];
  /** Most body bytes kept (after decompression); the rest is dropped and `truncated` set. */
  maxBytes?: number;
  /** Budget for the whole fetch, redirects included. */
  timeoutMs?: number;
  maxRedirects?: number;
  signal?: AbortSignal;
  lookup?: SafeLookup;
  userAgent?: string;
  /** `GET` unless set; any other method sends `body`. */
  method?: SafeFetchMethod;
  /**
   * Extra request headers. Values must be printable ASCII: anything else is
   * refused with `FetchHeaderError`, whose message never quotes the value (it
   * may be a credential). They are dropped on a redirect to another origin.
   */
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface SafeFetchResult {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  contentType: string | null;
  body: string;
  /** Body bytes read (after decompression). */
  bytes: number;
  truncated: boolean;
  /** Every URL a redirect led to, in order; the last one is `url`. */
  redirects: string[];
}

export const SAFE_FETCH_DEFAULTS = {
  maxBytes: 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 5,
  userAgent: "Clawdeck/0.1 (+safe-fetch)",
} as const;

export type FetchRefusalReason = BlockedAddressReason | "scheme" | "credentials" | "invalid_url" | "too_many_redirects";

/** The destination is not allowed; the message is written for a model to read. */
export class FetchRefusedError extends Error {
  readonly reason: FetchRefusalReason;
  /** The refused URL, without credentials. */
  readonly url: string;
  readonly host: string;
  /** The resolved address that was refused, when the host is a name. */
  readonly address?: string;
  /** Why, as the end of a sentence ("10.0.0.5 is a private address"). */
  readonly detail: string;

  constructor(init: { reason: FetchRefusalReason; url: string; host: string; detail: string; address?: string; from?: string }) {
    const via = init.from ? ` (redirected from ${init.from})` : "";
    super(`Refused to fetch ${init.url}${via}: ${init.detail}`);
    this.name = "FetchRefusedError";
    this.reason = init.reason;
    this.url = init.url;
    this.host = init.host;
    this.address = init.address;
    this.detail = init.detail;
  }
}

export class FetchTimeoutError extends Error {
  readonly url: string;
  readonly timeoutMs: number;

  constructor(url: string, timeoutMs: number) {
    super(`Timed out after ${timeoutMs} ms fetching ${url}`);
    this.name = "FetchTimeoutError";
    this.url = url;
    this.timeoutMs = timeoutMs;
  }
}

/** A request header cannot be sent; the message names the header, never its value. */
export class FetchHeaderError extends Error {
  readonly header: string;

  constructor(header: string) {
    super(`The request header "${header}" has a value that cannot be sent (only printable ASCII is allowed).`);
    this.name = "FetchHeaderError";
    this.header = header;
  }
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const HEADER_VALUE = /^[\x20-\x7e]*$/;

function checkHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new FetchHeaderError(name.replace(/[^\x21-\x7e]/g, "?").slice(0, 100));
    if (typeof value !== "string" || !HEADER_VALUE.test(value)) throw new FetchHeaderError(name);
    out[name.toLowerCase()] = value;
  }
  return out;
}

/** The network or the server failed (refused connection, unknown host, broken response). */
export class FetchFailedError extends Error {
  readonly url: string;
  readonly code?: string;

  constructor(url: string, detail: string, options?: { code?: string; cause?: unknown }) {
    super(`Could not fetch ${url}: ${detail}`, { cause: options?.cause });
    this.name = "FetchFailedError";
    this.url = url;
    this.code = options?.code;
  }
}

// ---------------------------------------------------------------------------
// Allow-list

interface AllowList {
  hosts: { hostname: string; port?: number }[];
  ranges: Cidr[];
}

function parseAllowList(entries: readonly string[]): AllowList {
  const list: AllowList = { hosts: [], ranges: [] };
  for (const raw of entries) {
    const entry = raw.trim();
    if (!entry) continue;
    if (entry.includes("/")) {
      list.ranges.push(cidr(entry));
      continue;
    }
    // A bare IPv6 address has colons but no port.
    const match = net.isIP(entry) === 6 ? [entry, `[${entry}]`] : /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry);
    const host = match?.[1];
    const port = match?.[2] === undefined ? undefined : Number(match[2]);
    if (!host || (port !== undefined && (port < 1 || port > 65535))) throw new Error(`Invalid allow-list entry "${entry}"`);
    let hostname: string;
    try {
      // Normalised exactly as a fetched URL's host is (case, IDNA, odd IPv4 forms).
      hostname = normaliseHostname(new URL(`http://${host}/`).hostname);
    } catch {
      throw new Error(`Invalid allow-list entry "${entry}"`);
    }
    list.hosts.push({ hostname, port });
  }
  return list;
}

function normaliseHostname(hostname: string): string {
  return hostname.replace(/\.$/, "");
}

function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

function hostAllowed(url: URL, allow: AllowList): boolean {
  const hostname = normaliseHostname(url.hostname);
  const port = effectivePort(url);
  return allow.hosts.some((entry) => entry.hostname === hostname && (entry.port === undefined || entry.port === port));
}

/** The reason an address is refused, after the allow-listed ranges. */
function refusalFor(address: string, allow: AllowList): BlockedAddressReason | null {
  const reason = isBlockedAddress(address);
  if (!reason || reason === "invalid_address") return reason;
  const parsed = parseIp(address);
  const candidates = parsed ? [parsed, embeddedIpv4(parsed)] : [];
  const allowed = candidates.some((ip) => ip && allow.ranges.some((range) => inCidr(ip, range)));
  return allowed ? null : reason;
}

// ---------------------------------------------------------------------------
// Fetching

/** The URL as shown in messages and results: never with its credentials. */
function display(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

function checkUrl(url: URL, allow: AllowList, from: string | undefined): void {
  const base = { url: display(url), host: url.hostname, from };
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchRefusedError({ ...base, reason: "scheme", detail: `only http and https URLs can be fetched, not ${url.protocol}` });
  }
  if (url.username || url.password) {
    throw new FetchRefusedError({ ...base, reason: "credentials", detail: "URLs with a user name or password are not allowed" });
  }
  const host = bareHost(url);
  // An IP literal is connected to without a lookup, so it is checked here.
  if (net.isIP(host) && !hostAllowed(url, allow)) {
    const reason = refusalFor(host, allow);
    if (reason) throw new FetchRefusedError({ ...base, reason, address: host, detail: `${host} is ${describeAddress(host, reason)}` });
  }
}

function parseUrl(input: string, base?: URL, from?: string): URL {
  try {
    const url = new URL(input, base);
    url.hash = "";
    return url;
  } catch {
    throw new FetchRefusedError({ reason: "invalid_url", url: input, host: "", from, detail: "it is not a valid URL" });
  }
}

interface HopContext {
  allow: AllowList;
  resolve: SafeLookup;
  signal: AbortSignal;
  userAgent: string;
  method: SafeFetchMethod;
  headers: Record<string, string>;
  body?: string | Buffer;
}

const defaultLookup: SafeLookup = (hostname, options, callback) => dns.lookup(hostname, options, callback);

function request(url: URL, from: string | undefined, ctx: HopContext): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    let refusal: FetchRefusedError | undefined;
    const trusted = hostAllowed(url, ctx.allow);

    const lookup: LookupFunction = (hostname, options, callback) => {
      ctx.resolve(hostname, { all: true }, (error, addresses) => {
        if (error) return callback(error, "", 0);
        if (!addresses.length) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
        if (!trusted) {
          // One bad address refuses the name: the socket may pick any of them.
          for (const { address } of addresses) {
            const reason = refusalFor(address, ctx.allow);
            if (!reason) continue;
            refusal = new FetchRefusedError({
              reason,
              url: display(url),
              host: url.hostname,
              from,
              address,
              detail: `${hostname} resolves to ${address}, ${describeAddress(address, reason)}`,
            });
            return callback(refusal, "", 0);
          }
        }
        if (options.all) return callback(null, addresses);
        const [first] = addresses as [LookupAddress];
        callback(null, first.address, first.family);
      });
    };

    const client = url.protocol === "https:" ? https : http;
    const req = client.request({
      protocol: url.protocol,
      hostname: bareHost(url),
      port: effectivePort(url),
      path: `${url.pathname}${url.search}`,
      method: ctx.method,
      headers: {
        "user-agent": ctx.userAgent,
        accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
        "accept-encoding": "gzip, deflate, br",
        ...ctx.headers,
        ...(ctx.body === undefined ? {} : { "content-length": String(Buffer.byteLength(ctx.body)) }),
      },
      // A pooled socket was connected through someone else's lookup: never reuse one.
      agent: false,
      lookup,
      signal: ctx.signal,
    });
    req.once("response", resolve);
    req.once("error", (error) => reject(refusal ?? error));
    req.end(ctx.body);
  });
}

function decoded(res: IncomingMessage): Readable {
  const encoding = (res.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip" || encoding === "deflate"
      ? zlib.createUnzip()
      : encoding === "br"
        ? zlib.createBrotliDecompress()
        : null;
  if (encoding !== "identity" && !decoder) {
    res.destroy();
    throw new Error(`unsupported content encoding "${encoding}"`);
  }
  if (!decoder) return res;
  pipeline(res, decoder, () => {});
  return decoder;
}

async function readBody(res: IncomingMessage, maxBytes: number, signal: AbortSignal) {
  const source = decoded(res);
  const stop = () => source.destroy(new Error("aborted"));
  signal.addEventListener("abort", stop, { once: true });
  const chunks: Buffer[] = [];
  let bytes = 0;
  let truncated = false;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const room = maxBytes - bytes;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        bytes += room;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      bytes += chunk.length;
    }
  } finally {
    signal.removeEventListener("abort", stop);
    res.destroy();
  }
  return { buffer: Buffer.concat(chunks), bytes, truncated };
}

function decodeText(buffer: Buffer, contentType: string | null, truncated: boolean): string {
  const label = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1] ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  // Streaming mode holds back a character cut in half by the truncation instead of emitting U+FFFD.
  return decoder.decode(buffer, { stream: truncated });
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

const networkErrors: Record<string, string> = {
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved right now",
  ECONNREFUSED: "the connection was refused",
  ECONNRESET: "the connection was reset",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  ETIMEDOUT: "the connection timed out",
  EPIPE: "the connection was closed",
  HPE_INVALID_CONSTANT: "the server sent an invalid HTTP response",
};

function failure(error: unknown, url: string): FetchFailedError {
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : undefined;
  const message = error instanceof Error ? error.message : String(error);
  const tls = code && /CERT|SSL|TLS|SELF_SIGNED/.test(code);
  const detail = (code && networkErrors[code]) ?? (tls ? `TLS failed (${code})` : message || "the request failed");
  return new FetchFailedError(url, detail, { code, cause: error });
}

/**
 * Fetches (GET, or POST with a body) a URL that may not point inside the server's own network. Throws
 * `FetchRefusedError` for a refused destination, `FetchTimeoutError` when the
 * budget runs out, `FetchFailedError` when the network or server fails, and the
 * signal's reason when the caller aborts. Any HTTP status is a result.
 */
export async function safeFetch(input: string, options: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const maxBytes = options.maxBytes ?? SAFE_FETCH_DEFAULTS.maxBytes;
  const timeoutMs = options.timeoutMs ?? SAFE_FETCH_DEFAULTS.timeoutMs;
  const maxRedirects = options.maxRedirects ?? SAFE_FETCH_DEFAULTS.maxRedirects;
  const allow = parseAllowList(options.allow ?? []);
  const headers = checkHeaders(options.headers ?? {});
  let url = parseUrl(input);

  options.signal?.throwIfAborted();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new FetchTimeoutError(display(url), timeoutMs)), timeoutMs);
  const forwardAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", forwardAbort, { once: true });

  const ctx: HopContext = {
    allow,
    resolve: options.lookup ?? defaultLookup,
    signal: controller.signal,
    userAgent: options.userAgent ?? SAFE_FETCH_DEFAULTS.userAgent,
    method: options.method ?? "GET",
    headers,
    body: options.method && options.method !== "GET" ? (options.body ?? "") : undefined,
  };
  const redirects: string[] = [];
  let from: string | undefined;
  try {
    for (;;) {
      checkUrl(url, allow, from);
      const res = await request(url, from, ctx);
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (redirectStatuses.has(status) && location) {
        res.destroy();
        from = display(url);
        const next = parseUrl(location, url, from);
        if (redirects.length >= maxRedirects) {
          throw new FetchRefusedError({
            reason: "too_many_redirects",
            url: display(next),
            host: next.hostname,
            from,
            detail: `more than ${maxRedirects} redirects`,
          });
        }
        // A credential goes to the origin it was meant for, never to where a redirect points.
        if (next.origin !== url.origin) ctx.headers = {};
        if (status === 303 || (ctx.method === "POST" && status !== 307 && status !== 308)) {
          ctx.method = "GET";
          ctx.body = undefined;
        }
        url = next;
        redirects.push(display(url));
        continue;
      }
      const contentType = res.headers["content-type"] ?? null;
      const { buffer, bytes, truncated } = await readBody(res, maxBytes, controller.signal);
      return { url: display(url), status, contentType, body: decodeText(buffer, contentType, truncated), bytes, truncated, redirects };
    }
  } catch (error) {
    if (error instanceof FetchRefusedError || error instanceof FetchTimeoutError) throw error;
    if (controller.signal.aborted) throw controller.signal.reason;
    throw failure(error, display(url));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", forwardAbort);
  }
}

// ---------------------------------------------------------------------------
// Connections that are not fetches (the egress proxy of agents' computers)

/**
 * The address a connection to `host:port` may go to, by the same rules as a fetch: a host on the allow-list goes
 * wherever it resolves; any other must resolve to public addresses only (one bad address refuses the name). The
 * check is made when connecting, on the address connected to, so a name cannot change its answer in between.
 */
export async function checkedAddress(host: string, port: number, options: { allow?: readonly string[]; lookup?: SafeLookup } = {}): Promise<LookupAddress> {
  const allow = parseAllowList(options.allow ?? []);
  const bracketed = net.isIP(host) === 6 ? `[${host}]` : host;
  const url = parseUrl(`http://${bracketed}:${port}/`);
  checkUrl(url, allow, undefined);
  const name = bareHost(url);
  const shown = `${url.hostname}:${port}`;
  if (net.isIP(name)) return { address: name, family: net.isIP(name) };
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    (options.lookup ?? defaultLookup)(name, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
  );
  if (addresses.length === 0) throw Object.assign(new Error(`No address for ${name}`), { code: "ENOTFOUND" });
  if (!hostAllowed(url, allow)) {
    for (const { address } of addresses) {
      const reason = refusalFor(address, allow);
      if (reason) throw new FetchRefusedError({ reason, url: shown, host: url.hostname, address, detail: `${name} resolves to ${address}, ${describeAddress(address, reason)}` });
    }
  }
  return addresses[0]!;
}
