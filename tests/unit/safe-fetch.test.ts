import dns, { type LookupAddress } from "node:dns";
import http from "node:http";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  FetchFailedError,
  FetchRefusedError,
  FetchTimeoutError,
  safeFetch,
  type SafeLookup,
} from "../../lib/net/safe-fetch";
import { isBlockedAddress } from "../../lib/net/addresses";
import { htmlToText, httpFetchTool } from "../../lib/tools/http-fetch";
import { ToolError, type ToolContext } from "../../lib/tools/types";

// ---------------------------------------------------------------------------
// Network guard for this file, independent of the code under test: real DNS is
// never asked, and any socket aimed anywhere but 127.0.0.1 fails before it
// connects. If safe-fetch ever let a private address through, the test would
// fail here instead of sending a packet.

const LOCAL = "127.0.0.1";
const guard = { connects: [] as string[], blocked: [] as string[], dnsQueries: [] as string[] };
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

interface TestServer {
  port: number;
  origin: string;
  requests: { url: string; headers: http.IncomingHttpHeaders }[];
}

const servers: http.Server[] = [];

async function serve(handler: http.RequestListener = (_req, res) => res.end("ok")): Promise<TestServer> {
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
async function closedPort(): Promise<number> {
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
function resolver(...addresses: string[]): SafeLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup: SafeLookup = (hostname, _options, callback) => {
    calls.push(hostname);
    process.nextTick(callback, null, addresses.map((address) => ({ address, family: net.isIP(address) })));
  };
  return Object.assign(lookup, { calls });
}

async function refusal(promise: Promise<unknown>): Promise<FetchRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FetchRefusedError);
  return error as FetchRefusedError;
}

// ---------------------------------------------------------------------------

describe("isBlockedAddress", () => {
  it.each([
    ["127.0.0.1", "loopback_address"],
    ["127.255.255.254", "loopback_address"],
    ["::1", "loopback_address"],
    ["0:0:0:0:0:0:0:1", "loopback_address"],
    ["10.0.0.1", "private_address"],
    ["10.255.255.255", "private_address"],
    ["172.16.0.1", "private_address"],
    ["172.31.255.255", "private_address"],
    ["192.168.0.1", "private_address"],
    ["192.168.255.255", "private_address"],
    ["fc00::1", "private_address"],
    ["fd12:3456:789a::1", "private_address"],
    ["fd00:ec2::254", "private_address"],
    ["fec0::1", "private_address"],
    ["169.254.169.254", "link_local_address"],
    ["169.254.0.1", "link_local_address"],
    ["fe80::1", "link_local_address"],
    ["fe80::1%eth0", "link_local_address"],
    ["febf:ffff::1", "link_local_address"],
    ["0.0.0.0", "unspecified_address"],
    ["0.1.2.3", "unspecified_address"],
    ["::", "unspecified_address"],
    ["100.64.0.1", "carrier_grade_nat_address"],
    ["100.100.100.200", "carrier_grade_nat_address"],
    ["100.127.255.255", "carrier_grade_nat_address"],
    ["224.0.0.1", "multicast_address"],
    ["239.255.255.250", "multicast_address"],
    ["ff02::1", "multicast_address"],
    ["240.0.0.1", "reserved_address"],
    ["255.255.255.255", "reserved_address"],
    ["192.0.2.10", "reserved_address"],
    ["198.18.0.1", "reserved_address"],
    ["2001:db8::1", "reserved_address"],
    ["2001::1", "reserved_address"],
    ["::ffff:127.0.0.1", "loopback_address"],
    ["::ffff:7f00:1", "loopback_address"],
    ["::FFFF:7F00:0001", "loopback_address"],
    ["::ffff:10.0.0.1", "private_address"],
    ["::ffff:192.168.1.1", "private_address"],
    ["::ffff:a9fe:a9fe", "link_local_address"],
    ["::ffff:0.0.0.0", "unspecified_address"],
    ["::127.0.0.1", "loopback_address"],
    ["::7f00:1", "loopback_address"],
    ["::ffff:0:7f00:1", "loopback_address"],
    ["64:ff9b::a00:1", "private_address"],
    ["64:ff9b::127.0.0.1", "loopback_address"],
    ["2002:c0a8:101::1", "private_address"],
    ["2002:a9fe:a9fe::", "link_local_address"],
  ])("refuses %s as %s", (address, reason) => {
    expect(isBlockedAddress(address)).toBe(reason);
  });

  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "11.0.0.1",
    "9.255.255.255",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.1",
    "169.253.255.255",
    "169.255.0.1",
    "172.15.255.255",
    "172.32.0.0",
    "192.167.255.255",
    "192.169.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
  ])("allows the public address %s", (address) => {
    expect(isBlockedAddress(address)).toBeNull();
  });

  it.each(["localhost", "", "127.1", "2130706433", "0x7f.0.0.1", "1.2.3.256", "010.0.0.1", "example.com", "::ffff::1::"])(
    "refuses %j as not an address",
    (input) => {
      expect(isBlockedAddress(input)).toBe("invalid_address");
    },
  );
});

describe("safeFetch refuses local destinations", () => {
  it.each([
    ["127.0.0.1", "127.0.0.1"],
    ["2130706433", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["[::1]", "::1"],
    ["[::ffff:127.0.0.1]", "::ffff:7f00:1"],
  ])("refuses http://%s/ before connecting", async (host, address) => {
    const target = await serve();
    const error = await refusal(safeFetch(`http://${host}:${target.port}/`));
    expect(error.reason).toBe("loopback_address");
    expect(error.message).toContain(`${address} is a loopback address`);
    expect(target.requests).toEqual([]);
  });

  it("refuses localhost after resolving it", async () => {
    const target = await serve();
    const error = await refusal(safeFetch(`http://localhost:${target.port}/`));
    expect(error.reason).toBe("loopback_address");
    expect(error.address).toBe(LOCAL);
    expect(error.message).toBe(`Refused to fetch http://localhost:${target.port}/: localhost resolves to 127.0.0.1, a loopback address`);
    expect(guard.dnsQueries).toContain("localhost");
    expect(target.requests).toEqual([]);
  });

  it.each([
    ["10.1.2.3", "private_address", "10.1.2.3, a private address"],
    ["169.254.169.254", "link_local_address", "169.254.169.254, a link-local address (the cloud metadata service)"],
    ["::ffff:192.168.1.1", "private_address", "::ffff:192.168.1.1, a private address"],
    ["100.100.100.200", "carrier_grade_nat_address", "100.100.100.200, a carrier-grade NAT address"],
    ["fd00:ec2::254", "private_address", "fd00:ec2::254, a private address (the cloud metadata service)"],
  ])("refuses a name resolving to %s inside the lookup", async (address, reason, text) => {
    const lookup = resolver(address);
    const error = await refusal(safeFetch("http://internal.example.test/secrets", { lookup }));
    expect(error.reason).toBe(reason);
    expect(error.address).toBe(address);
    expect(error.host).toBe("internal.example.test");
    expect(error.message).toContain(`internal.example.test resolves to ${text}`);
    expect(lookup.calls).toEqual(["internal.example.test"]);
    expect(guard.connects).not.toContain(address);
  });

  it.each([
    [[LOCAL, "10.1.2.3"]],
    [["10.1.2.3", LOCAL]],
  ])("refuses a name whose addresses %j include a private one", async (addresses) => {
    // 127.0.0.1 is allow-listed, so a guard that checked only one address would reach the local server.
    const target = await serve();
    const lookup = resolver(...addresses);
    const error = await refusal(safeFetch(`http://mixed.example.test:${target.port}/`, { lookup, allow: [`${LOCAL}/32`] }));
    expect(error.reason).toBe("private_address");
    expect(error.address).toBe("10.1.2.3");
    expect(target.requests).toEqual([]);
  });

  it("connects to the address the lookup checked", async () => {
    const target = await serve((_req, res) => res.end("through the injected lookup"));
    const lookup = resolver(LOCAL);
    const result = await safeFetch(`http://app.example.test:${target.port}/`, { lookup, allow: [`${LOCAL}/32`] });
    expect(result.body).toBe("through the injected lookup");
    expect(target.requests[0]?.headers.host).toBe(`app.example.test:${target.port}`);
    expect(guard.connects).toContain(LOCAL);
    expect(guard.dnsQueries).not.toContain("app.example.test");
  });

  it("never reuses a pooled connection opened by other code", async () => {
    const target = await serve();
    // Node's global agent keeps this socket to localhost alive for the next request to the same host and port.
    await new Promise((resolve) => http.get(`http://localhost:${target.port}/warm`, (res) => res.resume().on("end", resolve)));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const error = await refusal(safeFetch(`http://localhost:${target.port}/`));
    expect(error.reason).toBe("loopback_address");
    expect(target.requests.map((r) => r.url)).toEqual(["/warm"]);
  });

  it("resolves again on every hop, so a name rebound to a private address is refused", async () => {
    const target = await serve((_req, res) => res.writeHead(302, { location: "/second" }).end());
    let answer = LOCAL;
    const calls: string[] = [];
    const lookup: SafeLookup = (hostname, _options, callback) => {
      calls.push(hostname);
      const address = answer;
      answer = "10.0.0.7";
      process.nextTick(callback, null, [{ address, family: 4 }]);
    };
    const error = await refusal(safeFetch(`http://rebind.example.test:${target.port}/first`, { lookup, allow: [`${LOCAL}/32`] }));
    expect(error.reason).toBe("private_address");
    expect(error.message).toContain(`(redirected from http://rebind.example.test:${target.port}/first)`);
    expect(calls).toEqual(["rebind.example.test", "rebind.example.test"]);
    expect(target.requests.map((r) => r.url)).toEqual(["/first"]);
  });

  it.each([
    ["file:///etc/passwd", "scheme"],
    ["ftp://127.0.0.1/file", "scheme"],
    ["gopher://127.0.0.1:70/", "scheme"],
    ["not a url", "invalid_url"],
  ])("refuses %s (%s)", async (url, reason) => {
    const error = await refusal(safeFetch(url, { allow: ["127.0.0.1/32"] }));
    expect(error.reason).toBe(reason);
  });

  it("refuses credentials in the URL without repeating them", async () => {
    const target = await serve();
    const error = await refusal(safeFetch(`http://user:hunter2@127.0.0.1:${target.port}/`, { allow: [`127.0.0.1:${target.port}`] }));
    expect(error.reason).toBe("credentials");
    expect(error.message).not.toContain("hunter2");
    expect(error.url).toBe(`${target.origin}/`);
    expect(target.requests).toEqual([]);
  });
});

describe("safeFetch redirects", () => {
  it.each([
    ["127.0.0.2 on an allowed port", (port: number) => `http://127.0.0.2:${port}/`, "loopback_address"],
    ["localhost", (port: number) => `http://localhost:${port}/`, "loopback_address"],
    ["another port of the allowed host", (port: number) => `http://127.0.0.1:${port}/`, "loopback_address"],
  ])("refuses a hop to %s and never reaches it", async (_label, next, reason) => {
    const other = await serve();
    const allowed = await serve((_req, res) => res.writeHead(302, { location: next(other.port) }).end());
    const error = await refusal(safeFetch(`${allowed.origin}/start`, { allow: [`127.0.0.1:${allowed.port}`] }));
    expect(error.reason).toBe(reason);
    expect(error.message).toContain(`(redirected from ${allowed.origin}/start)`);
    expect(allowed.requests).toHaveLength(1);
    expect(other.requests).toEqual([]);
  });

  it("refuses a hop to another scheme", async () => {
    const allowed = await serve((_req, res) => res.writeHead(301, { location: "file:///etc/passwd" }).end());
    const error = await refusal(safeFetch(allowed.origin, { allow: [`127.0.0.1:${allowed.port}`] }));
    expect(error.reason).toBe("scheme");
  });

  it("follows relative redirects and reports them", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/a") return res.writeHead(302, { location: "/b?x=1" }).end();
      if (req.url === "/b?x=1") return res.writeHead(307, { location: "c" }).end();
      res.setHeader("content-type", "text/plain");
      res.end(`final ${req.url}`);
    });
    const result = await safeFetch(`${server.origin}/a`, { allow: [`127.0.0.1:${server.port}`] });
    expect(result.status).toBe(200);
    expect(result.url).toBe(`${server.origin}/c`);
    expect(result.body).toBe("final /c");
    expect(result.redirects).toEqual([`${server.origin}/b?x=1`, `${server.origin}/c`]);
  });

  it("follows a hop to another port when a CIDR range allows the address", async () => {
    const other = await serve((_req, res) => res.end("other"));
    const first = await serve((_req, res) => res.writeHead(303, { location: `${other.origin}/` }).end());
    const result = await safeFetch(first.origin, { allow: ["127.0.0.0/8"] });
    expect(result.body).toBe("other");
    expect(other.requests).toHaveLength(1);
  });

  it("stops after maxRedirects", async () => {
    const server = await serve((req, res) => res.writeHead(302, { location: `/n${req.url?.length}` }).end());
    const error = await refusal(safeFetch(`${server.origin}/`, { allow: [`127.0.0.1:${server.port}`], maxRedirects: 3 }));
    expect(error.reason).toBe("too_many_redirects");
    expect(error.message).toContain("more than 3 redirects");
    expect(server.requests).toHaveLength(4);
  });
});

describe("safeFetch against an allow-listed server", () => {
  it("returns status, type and body, and any status is a result", async () => {
    const server = await serve((req, res) => {
      res.writeHead(req.url === "/missing" ? 404 : 200, { "content-type": "text/plain; charset=utf-8" });
      res.end(`café ${req.url}`);
    });
    const allow = [`127.0.0.1:${server.port}`];
    const ok = await safeFetch(`${server.origin}/page`, { allow, userAgent: "clawdeck-test" });
    expect(ok).toEqual({
      url: `${server.origin}/page`,
      status: 200,
      contentType: "text/plain; charset=utf-8",
      body: "café /page",
      bytes: Buffer.byteLength("café /page"),
      truncated: false,
      redirects: [],
    });
    expect(server.requests[0]?.headers["user-agent"]).toBe("clawdeck-test");
    const missing = await safeFetch(`${server.origin}/missing`, { allow });
    expect(missing.status).toBe(404);
  });

  it("reads at most maxBytes and marks the body truncated", async () => {
    const server = await serve((_req, res) => res.end("a".repeat(10_000)));
    const allow = [`127.0.0.1:${server.port}`];
    const cut = await safeFetch(server.origin, { allow, maxBytes: 1000 });
    expect(cut).toMatchObject({ bytes: 1000, truncated: true });
    expect(cut.body).toBe("a".repeat(1000));
    const whole = await safeFetch(server.origin, { allow, maxBytes: 10_000 });
    expect(whole).toMatchObject({ bytes: 10_000, truncated: false });
  });

  it("does not end a truncated body with half a character", async () => {
    const server = await serve((_req, res) => res.end("ééééé"));
    const result = await safeFetch(server.origin, { allow: [`127.0.0.1:${server.port}`], maxBytes: 5 });
    expect(result.body).toBe("éé");
    expect(result.truncated).toBe(true);
  });

  it("limits the decompressed size of a compressed body", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-encoding": "gzip", "content-type": "text/plain" });
      res.end(gzipSync("b".repeat(1_000_000)));
    });
    const allow = [`127.0.0.1:${server.port}`];
    const result = await safeFetch(server.origin, { allow, maxBytes: 100 });
    expect(result).toMatchObject({ body: "b".repeat(100), bytes: 100, truncated: true });
    expect(server.requests[0]?.headers["accept-encoding"]).toContain("gzip");
  });

  it("decodes latin1 when the charset says so", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=ISO-8859-1" });
      res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    });
    const result = await safeFetch(server.origin, { allow: [`127.0.0.1:${server.port}`] });
    expect(result.body).toBe("café");
  });

  it("times out on a server that never answers", async () => {
    const server = await serve(() => {});
    const started = Date.now();
    const error = await safeFetch(server.origin, { allow: [`127.0.0.1:${server.port}`], timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchTimeoutError);
    expect((error as Error).message).toBe(`Timed out after 200 ms fetching ${server.origin}/`);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.requests).toHaveLength(1);
  });

  it("times out on a body that stalls", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("partial");
    });
    const error = await safeFetch(server.origin, { allow: [`127.0.0.1:${server.port}`], timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchTimeoutError);
  });

  it("stops when the caller aborts, with the caller's reason", async () => {
    const server = await serve(() => {});
    const controller = new AbortController();
    const reason = new Error("run cancelled");
    setTimeout(() => controller.abort(reason), 50);
    const error = await safeFetch(server.origin, { allow: [`127.0.0.1:${server.port}`], signal: controller.signal }).catch((e: unknown) => e);
    expect(error).toBe(reason);
  });

  it("reports a refused connection as a failure", async () => {
    const port = await closedPort();
    const error = await safeFetch(`http://127.0.0.1:${port}/`, { allow: [`127.0.0.1:${port}`] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchFailedError);
    expect((error as FetchFailedError).code).toBe("ECONNREFUSED");
    expect((error as Error).message).toBe(`Could not fetch http://127.0.0.1:${port}/: the connection was refused`);
  });

  it("rejects a malformed allow-list", async () => {
    await expect(safeFetch("http://127.0.0.1/", { allow: ["10.0.0.0/33"] })).rejects.toThrow('Invalid CIDR range "10.0.0.0/33"');
    await expect(safeFetch("http://127.0.0.1/", { allow: ["host:99999"] })).rejects.toThrow('Invalid allow-list entry "host:99999"');
  });
});

describe("htmlToText", () => {
  it("extracts the title and readable text", () => {
    const page = htmlToText(`<!doctype html><html><head><title> Tea &amp; Biscuits </title>
      <style>body { color: red }</style><script>var secret = "x";</script></head>
      <body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
      <h1>Brewing&nbsp;tea</h1><!-- hidden comment -->
      <p>Boil   water,
      then wait &#8212; patiently&#x21;</p><p>Use &lt;b&gt; tags? Write &amp;lt;b&amp;gt;.</p>
      <ul><li>Milk</li><li>Sugar</li></ul><noscript>Enable JS</noscript></body></html>`);
    expect(page.title).toBe("Tea & Biscuits");
    expect(page.text).toBe("Brewing tea\n\nBoil water, then wait — patiently!\n\nUse <b> tags? Write &lt;b&gt;.\n\nMilk\nSugar");
  });

  it("has no title when the page has none, and drops a tag cut off at the end", () => {
    expect(htmlToText("<p>One</p><p>Two</p><a href='/x")).toEqual({ text: "One\n\nTwo" });
  });
});

describe("http.fetch tool", () => {
  const context = (signal = new AbortController().signal): ToolContext => ({
    db: undefined as never,
    workspaceId: "ws_1",
    agentId: "agent_1",
    agentHandle: "scout",
    runId: "run_1",
    stepId: "step_1",
    hop: 0,
    userId: null,
    sessionId: null,
    trigger: "agent_message", taint: [],
    credential: async () => null,
    signal,
  });

  const page = `<html><head><title>Local &amp; Friendly</title><script>alert("no")</script></head>
    <body><nav>Menu</nav><main><h1>Welcome</h1><p>Read <em>this</em>.</p></main></body></html>`;

  it("declares itself", () => {
    expect(httpFetchTool.name).toBe("http.fetch");
    expect(httpFetchTool.effects).toEqual(["reads_external"]);
    expect(httpFetchTool.timeoutMs).toBe(15_000);
    expect(httpFetchTool.preview({ url: "https://example.com/a" })).toEqual({
      title: "Fetch a web page",
      fields: [{ label: "URL", value: "https://example.com/a" }],
    });
  });

  it.each([
    ["https://example.com/page?q=1", true],
    ["http://example.com", true],
    ["ftp://example.com/file", false],
    ["file:///etc/passwd", false],
    ["javascript:alert(1)", false],
    ["example.com", false],
  ])("input %s is valid: %s", (url, valid) => {
    expect(httpFetchTool.input.safeParse({ url }).success).toBe(valid);
  });

  it("fetches an allow-listed page as text, tainted by its host", async () => {
    const server = await serve((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page));
    vi.stubEnv("CLAWDECK_FETCH_ALLOW", ` example.org , 127.0.0.1:${server.port}`);
    const input = { url: `${server.origin}/welcome` };
    const output = await httpFetchTool.execute(context(), input);
    expect(output).toEqual({
      url: `${server.origin}/welcome`,
      status: 200,
      contentType: "text/html; charset=utf-8",
      title: "Local & Friendly",
      text: "Welcome\n\nRead this.",
      truncated: false,
    });
    expect(httpFetchTool.taint(input, output)).toBe("web:127.0.0.1");
  });

  it("keeps at most 20,000 characters of text", async () => {
    const server = await serve((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("z".repeat(25_000)));
    vi.stubEnv("CLAWDECK_FETCH_ALLOW", `127.0.0.1:${server.port}`);
    const output = await httpFetchTool.execute(context(), { url: server.origin });
    expect(output.text).toHaveLength(20_000);
    expect(output.truncated).toBe(true);
    expect(output.title).toBeUndefined();
  });

  it("surfaces a refusal as a ToolError the model can read", async () => {
    const server = await serve((_req, res) => res.end(page));
    vi.stubEnv("CLAWDECK_FETCH_ALLOW", "");
    const error = await httpFetchTool.execute(context(), { url: `${server.origin}/` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe(`Refused to fetch ${server.origin}/: 127.0.0.1 is a loopback address`);
    expect(server.requests).toEqual([]);
  });

  it("surfaces a network failure as a ToolError", async () => {
    const port = await closedPort();
    vi.stubEnv("CLAWDECK_FETCH_ALLOW", "127.0.0.0/8");
    const error = await httpFetchTool.execute(context(), { url: `http://127.0.0.1:${port}/` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(/^Could not fetch .*: the connection was refused$/);
  });

  it("refuses content that is not text", async () => {
    const server = await serve((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50])));
    vi.stubEnv("CLAWDECK_FETCH_ALLOW", `127.0.0.1:${server.port}`);
    await expect(httpFetchTool.execute(context(), { url: server.origin })).rejects.toThrow(ToolError);
  });
});
