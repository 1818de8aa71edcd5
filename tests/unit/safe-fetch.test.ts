import http from "node:http";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { FetchFailedError, FetchTimeoutError, safeFetch, type SafeLookup } from "../../lib/net/safe-fetch";
import { closedPort, guard, LOCAL, refusal, resolver, serve } from "../support/network-guard";

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
