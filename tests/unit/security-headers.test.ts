import { describe, expect, it } from "vitest";
import { apiContentSecurityPolicy, createNonce, isApiPath, pageContentSecurityPolicy } from "../../lib/http/security-headers";

describe("security headers", () => {
  it("a page policy admits scripts only with the response's nonce, and eval only in development", () => {
    const production = pageContentSecurityPolicy("abc123");
    expect(production).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic';");
    expect(production).not.toContain("unsafe-eval");
    expect(production).toContain("frame-ancestors 'none'");
    expect(production).toContain("connect-src 'self'");
    expect(pageContentSecurityPolicy("abc123", { development: true })).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic' 'unsafe-eval';");
  });

  it("nonces are 128 random bits in base64, different every time (100 of them, all distinct)", () => {
    const nonces = Array.from({ length: 100 }, createNonce);
    expect(new Set(nonces).size).toBe(100);
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
  });

  it("API paths get the deny-all policy; pages that merely start with 'api' do not", () => {
    expect(apiContentSecurityPolicy).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(isApiPath("/api")).toBe(true);
    expect(isApiPath("/api/runs/1/events")).toBe(true);
    expect(isApiPath("/apiary")).toBe(false);
    expect(isApiPath("/w/demo")).toBe(false);
  });
});
