import { describe, expect, it } from "vitest";
import { apiContentSecurityPolicy, apiSecurityHeaders, createNonce, pageContentSecurityPolicy } from "../../lib/http/security-headers";
import nextConfig from "../../next.config";
import { config as proxyConfig } from "../../proxy";

describe("security headers", () => {
  it("a page policy admits scripts only with the response's nonce, and eval only in development", () => {
    const production = pageContentSecurityPolicy("abc123");
    expect(production).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic';");
    expect(production).not.toContain("unsafe-eval");
    expect(production).toContain("frame-ancestors 'none'");
    expect(production).toContain("connect-src 'self'");
    expect(pageContentSecurityPolicy("abc123", { development: true })).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic' 'unsafe-eval';");
  });

  it("forms post to the app itself, and to the configured identity providers (the sign-in buttons' redirect)", () => {
    expect(pageContentSecurityPolicy("abc123")).toContain("form-action 'self';");
    expect(pageContentSecurityPolicy("abc123", { formActions: ["https://login.example.com"] })).toContain("form-action 'self' https://login.example.com;");
  });

  it("nonces are 128 random bits in base64, different every time (100 of them, all distinct)", () => {
    const nonces = Array.from({ length: 100 }, createNonce);
    expect(new Set(nonces).size).toBe(100);
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
  });

  it("API paths get the deny-all policy from the config; the proxy runs for pages, including ones that merely start with 'api'", async () => {
    expect(apiContentSecurityPolicy).toBe("default-src 'none'; frame-ancestors 'none'");
    const rules = await nextConfig.headers!();
    for (const source of ["/api", "/api/:path*"]) {
      const rule = rules.find((r) => r.source === source)!;
      expect(rule.headers).toEqual(apiSecurityHeaders());
      expect(Object.fromEntries(rule.headers.map((h) => [h.key, h.value]))).toMatchObject({
        "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
      });
    }
    const proxied = (path: string) => new RegExp(`^${proxyConfig.matcher[0]}$`).test(path);
    expect(proxied("/api")).toBe(false);
    expect(proxied("/api/runs/1/events")).toBe(false);
    expect(proxied("/_next/static/chunks/a.js")).toBe(false);
    expect(proxied("/apiary")).toBe(true);
    expect(proxied("/w/demo")).toBe(true);
    expect(proxied("/")).toBe(true);
  });
});
