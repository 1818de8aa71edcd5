import { describe, expect, it } from "vitest";
import { parseEnv } from "../../lib/env";
import { targetFromEnv, redactUrl } from "../../lib/db/client";
import { hasRole } from "../../lib/workspaces/roles";
import { slugify } from "../../lib/workspaces/workspaces";
import { acceptAsNewAccountSchema, createInvitationSchema } from "../../lib/workspaces/invitations";

describe("environment", () => {
  it("defaults to PGlite in ./data on port 3000", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(targetFromEnv(env)).toMatchObject({ driver: "pglite" });
    expect((targetFromEnv(env) as { dataDir: string }).dataDir).toMatch(/data\/pglite$/);
  });

  it("switches to PostgreSQL when DATABASE_URL is set, and treats an empty value as unset", () => {
    expect(targetFromEnv(parseEnv({ DATABASE_URL: "postgres://u:p@h:5432/db" }))).toEqual({ driver: "postgres", url: "postgres://u:p@h:5432/db" });
    expect(targetFromEnv(parseEnv({ DATABASE_URL: "" })).driver).toBe("pglite");
  });

  it("names the variable that is wrong", () => {
    expect(() => parseEnv({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => parseEnv({ AUTH_SECRET: "short" })).toThrow(/AUTH_SECRET must be at least 32/);
    expect(() => parseEnv({ CLAWDECK_ENCRYPTION_KEY: "abc" })).toThrow(/32 bytes/);
    expect(() => parseEnv({ PORT: "70000" })).toThrow(/PORT/);
  });

  it("never shows a database password", () => {
    expect(redactUrl("postgres://app:s3cret@db:5432/x")).toBe("postgres://app:***@db:5432/x");
  });
});

describe("roles", () => {
  it.each([
    ["owner", "manager", true],
    ["manager", "reviewer", true],
    ["reviewer", "reviewer", true],
    ["reviewer", "manager", false],
    ["member", "reviewer", false],
    ["manager", "owner", false],
  ] as const)("%s has at least %s: %s", (role, least, expected) => {
    expect(hasRole(role, least)).toBe(expected);
  });
});

describe("inputs", () => {
  it("slugs workspace names", () => {
    expect(slugify("Acme Research & Ops")).toBe("acme-research-ops");
    expect(slugify("Ça va")).toBe("ca-va");
    expect(slugify("!!!")).toBe("workspace");
  });

  it("normalises invited emails and bounds chosen passwords to what bcrypt reads", () => {
    expect(createInvitationSchema.parse({ email: " Bob@Example.COM ", role: "member" }).email).toBe("bob@example.com");
    const token = "a".repeat(43);
    const ok = acceptAsNewAccountSchema.parse({ token, name: " Bob ", password: "12345678" });
    expect(ok.name).toBe("Bob");
    expect(acceptAsNewAccountSchema.safeParse({ token, name: "B", password: "é".repeat(37) }).success).toBe(false);
    expect(acceptAsNewAccountSchema.safeParse({ token: "short", name: "B", password: "12345678" }).success).toBe(false);
  });
});
