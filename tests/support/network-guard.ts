import dns, { type LookupAddress } from "node:dns";
import http from "node:http";
import net from "node:net";
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from "vitest";
import { FetchRefusedError, type SafeLookup } from "../../lib/net/safe-fetch";

// ---------------------------------------------------------------------------
// Network guard for the test file that imports this module, independent of the code under test: real DNS is
// never asked, and any socket aimed anywhere but 127.0.0.1 fails before it
// connects. If safe-fetch ever let a private address through, the test would
// fail here instead of sending a packet.

export const LOCAL = "127.0.0.1";
export const guard = { connects: [] as string[], blocked: [] as string[], dnsQueries: [] as string[] };
const realConnect = net.Socket.prototype.connect;
type Lookup = (hostname: string, options: object, callback: (...args: unknown[]) => void) => void;

function loopbackOnly(inner: Lookup): Lookup {
  return (hostname, options, callback) =>
    inner(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? (address as LookupAddress[]).map((a) => a.address) : [address as string];
      const outside = addresses.filter((a) => a !== LOCAL);
      if (outside.length) {
        guard.blocked.push(...outside);
        return callback(new Error(`test network guard: refused to connect to ${outside.join(", ")}`), "", 0);
      }
      guard.connects.push(...addresses);
      callback(null, address, family);
    });
}

beforeAll(() => {
  vi.spyOn(dns, "lookup").mockImplementation(((hostname: string, options: unknown, callback: unknown) => {
    guard.dnsQueries.push(hostname);
    const done = (typeof options === "function" ? options : callback) as (...args: unknown[]) => void;
    const all = typeof options === "object" && options !== null && (options as { all?: boolean }).all;
    // Like getaddrinfo, an IP literal answers itself without asking anyone (server.listen relies on it).
    const address = net.isIP(hostname) ? hostname : hostname === "localhost" ? LOCAL : null;
    if (!address) {
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
      return process.nextTick(done, error, all ? [] : "", 0);
    }
    const family = net.isIP(address);
    process.nextTick(() => (all ? done(null, [{ address, family }]) : done(null, address, family)));
  }) as never);

  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as net.TcpNetConnectOpts | undefined;
    if (options && typeof options === "object" && !("path" in options && options.path)) {
      const host = options.host ?? "localhost";
      if (net.isIP(host)) {
        if (host !== LOCAL) {
          guard.blocked.push(host);
          throw new Error(`test network guard: refused to connect to ${host}`);
        }
        guard.connects.push(host);
      } else {
        options.lookup = loopbackOnly((options.lookup ?? dns.lookup) as unknown as Lookup) as unknown as net.LookupFunction;
      }
    }
    return (realConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof realConnect;
});

afterAll(() => {
  net.Socket.prototype.connect = realConnect;
  vi.restoreAllMocks();
});

// ---------------------------------------------------------------------------
// Local servers (127.0.0.1 only)

export interface TestServer {
  port: number;
  origin: string;
  requests: { url: string; headers: http.IncomingHttpHeaders }[];
}

const servers: http.Server[] = [];

export async function serve(handler: http.RequestListener = (_req, res) => res.end("ok")): Promise<TestServer> {
  const requests: TestServer["requests"] = [];
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? "", headers: req.headers });
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, LOCAL, resolve));
  const { port } = server.address() as net.AddressInfo;
  return { port, origin: `http://${LOCAL}:${port}`, requests };
}

/** A port nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, LOCAL, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
  vi.unstubAllEnvs();
  expect(guard.blocked.splice(0), "the test network guard had to stop a connection").toEqual([]);
});

beforeEach(() => {
  guard.connects = [];
  guard.dnsQueries = [];
});

/** An injected resolver answering every name with fixed addresses, recording what it was asked. */
export function resolver(...addresses: string[]): SafeLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup: SafeLookup = (hostname, _options, callback) => {
    calls.push(hostname);
    process.nextTick(callback, null, addresses.map((address) => ({ address, family: net.isIP(address) })));
  };
  return Object.assign(lookup, { calls });
}

export async function refusal(promise: Promise<unknown>): Promise<FetchRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FetchRefusedError);
  return error as FetchRefusedError;
}
