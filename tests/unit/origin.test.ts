import { describe, expect, it } from "vitest";
import { parseEnv } from "../../lib/env";
import { originPolicyFromEnv, refusedOrigin, type OriginPolicy } from "../../lib/http/origin";

const direct: OriginPolicy = { origins: [], trustProxy: false };
const configured: OriginPolicy = { origins: ["https://deck.example.com"], trustProxy: false };

function write(headers: Record<string, string>, method = "POST") {
  return new Request("http://internal:3000/api/workspaces", { method, headers });
}

describe("the origin rule for writes", () => {
  it("reads pass whatever their origin", () => {
    expect(refusedOrigin(write({ origin: "https://evil.example" }, "GET"), direct)).toBeNull();
    expect(refusedOrigin(write({}, "HEAD"), direct)).toBeNull();
  });

  it("with no origin configured, a write's Origin must match its Host", () => {
    expect(refusedOrigin(write({ host: "deck.local:3000", origin: "http://deck.local:3000" }), direct)).toBeNull();
    expect(refusedOrigin(write({ host: "deck.local:3000", origin: "http://evil.example" }), direct)).toBe("the origin http://evil.example");
    expect(refusedOrigin(write({ host: "deck.local:3000", origin: "http://deck.local:4000" }), direct)).toBe("the origin http://deck.local:4000");
    expect(refusedOrigin(write({ origin: "http://deck.local:3000" }), direct)).toBe("no Host header to compare the origin with");
  });

  it("refuses writes with no Origin unless the browser says same-origin, and opaque or cross-site ones", () => {
    expect(refusedOrigin(write({ host: "deck.local" }), direct)).toBe("no Origin header");
    expect(refusedOrigin(write({ host: "deck.local", "sec-fetch-site": "same-origin" }), direct)).toBeNull();
    expect(refusedOrigin(write({ host: "deck.local", "sec-fetch-site": "none" }), direct)).toBe("no Origin header");
    expect(refusedOrigin(write({ host: "deck.local", origin: "null" }), direct)).toBe("an unreadable Origin header");
    expect(refusedOrigin(write({ host: "deck.local", origin: "http://deck.local", "sec-fetch-site": "cross-site" }), direct)).toBe("a cross-site request");
    expect(refusedOrigin(write({ host: "deck.local", origin: "http://deck.local", "sec-fetch-site": "same-site" }), direct)).toBe("a same-site request");
  });

  it("X-Forwarded-Host is ignored unless a trusted proxy is configured", () => {
    const spoofed = { host: "deck.local", "x-forwarded-host": "evil.example", origin: "https://evil.example" };
    expect(refusedOrigin(write(spoofed), direct)).toBe("the origin https://evil.example");
    expect(refusedOrigin(write({ host: "10.0.0.5:3000", "x-forwarded-host": "deck.example.com, proxy", origin: "https://deck.example.com" }), { origins: [], trustProxy: true })).toBeNull();
  });

  it("with an origin configured, only that origin writes: the Host and X-Forwarded-Host no longer matter", () => {
    expect(refusedOrigin(write({ host: "internal:3000", origin: "https://deck.example.com" }), configured)).toBeNull();
    // A name rebound to the server's address makes Host and Origin agree; the configured origin still refuses it.
    expect(refusedOrigin(write({ host: "rebound.example", origin: "http://rebound.example" }), configured)).toBe("the origin http://rebound.example");
    expect(refusedOrigin(write({ host: "x", "x-forwarded-host": "evil.example", origin: "https://evil.example" }), { ...configured, trustProxy: true })).toBe("the origin https://evil.example");
    expect(refusedOrigin(write({ host: "x", "sec-fetch-site": "same-origin" }), configured)).toBeNull();
  });

  it("the policy comes from CLAWDECK_ORIGIN, else AUTH_URL's origin, and the proxy is trusted only when told", () => {
    expect(originPolicyFromEnv(parseEnv({ CLAWDECK_ORIGIN: "https://deck.example.com/, http://localhost:3000" }))).toEqual({
      origins: ["https://deck.example.com", "http://localhost:3000"],
      trustProxy: false,
    });
    expect(originPolicyFromEnv(parseEnv({ AUTH_URL: "https://deck.example.com/api/auth", CLAWDECK_TRUSTED_PROXIES: "1" }))).toEqual({
      origins: ["https://deck.example.com"],
      trustProxy: true,
    });
    expect(originPolicyFromEnv(parseEnv({}))).toEqual({ origins: [], trustProxy: false });
    expect(() => parseEnv({ CLAWDECK_ORIGIN: "deck.example.com" })).toThrow(/CLAWDECK_ORIGIN/);
  });
});
