import { describe, expect, it } from "vitest";
import { credentialInputSchema, hostAllowed } from "../../lib/connections/credentials";

describe("the hosts a credential may be sent to", () => {
  it.each([
    [["api.github.com"], "https://api.github.com/user", true],
    [["api.github.com"], "https://API.GitHub.com/user", true],
    [["api.github.com"], "https://api.github.com.evil.com/", false],
    [["api.github.com"], "https://evil.com/?u=api.github.com", false],
    [["api.github.com"], "https://github.com/", false],
    [["api.github.com"], "https://api.github.com:8443/", false],
    [["api.example.com:8443"], "https://api.example.com:8443/x", true],
    [["api.example.com:8443"], "https://api.example.com/x", false],
    [["*.example.com"], "https://a.example.com/", true],
    [["*.example.com"], "https://a.b.example.com/", true],
    [["*.example.com"], "https://example.com/", false],
    [["*.example.com"], "https://badexample.com/", false],
    [["127.0.0.1:4000"], "http://127.0.0.1:4000/", true],
  ])("%j → %s: %s", (hosts, url, allowed) => {
    expect(hostAllowed(hosts, new URL(url))).toBe(allowed);
  });

  it("takes names, hosts and values that can go in a header, and nothing else", () => {
    const ok = credentialInputSchema.parse({ name: "GitHub", hosts: ["API.GitHub.com", "*.example.com"], value: "ghp_abc123" });
    expect(ok).toMatchObject({ name: "github", hosts: ["api.github.com", "*.example.com"], header: "Authorization", scheme: "Bearer" });
    for (const bad of [
      { name: "x", hosts: [], value: "v" },
      { name: "x", hosts: ["https://api.github.com"], value: "v" },
      { name: "x", hosts: ["api.github.com/path"], value: "v" },
      { name: "x", hosts: ["api.github.com"], value: "has space" },
      { name: "x", hosts: ["api.github.com"], value: "line\nbreak" },
      { name: "bad name!", hosts: ["api.github.com"], value: "v" },
    ]) {
      expect(credentialInputSchema.safeParse(bad).success).toBe(false);
    }
  });
});
