import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseEnv } from "../../lib/env";
import { loadSecrets, MissingSecretsError } from "../../lib/secrets";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "clawdeck-secrets-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("server secrets", () => {
  it("are generated once into the data folder and reused after a restart", () => {
    const env = parseEnv({ CLAWDECK_DATA_DIR: root, NODE_ENV: "production" });
    const first = loadSecrets(env);
    const second = loadSecrets(env);
    expect(first.authSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.encryptionKey).toHaveLength(32);
    expect(second.authSecret).toBe(first.authSecret);
    expect(second.encryptionKey.equals(first.encryptionKey)).toBe(true);
    expect(first.origin).toEqual({ authSecret: "data-folder", encryptionKey: "data-folder" });
    expect(fs.statSync(path.join(root, "secrets.json")).mode & 0o077).toBe(0);
  });

  it("come from the environment when set", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    const secrets = loadSecrets(parseEnv({ CLAWDECK_DATA_DIR: root, AUTH_SECRET: "x".repeat(40), CLAWDECK_ENCRYPTION_KEY: key }));
    expect(secrets.authSecret).toBe("x".repeat(40));
    expect(secrets.encryptionKey.toString("base64")).toBe(key);
  });

  it("must be set in production on PostgreSQL, and the error names them", () => {
    const env = parseEnv({ CLAWDECK_DATA_DIR: root, NODE_ENV: "production", DATABASE_URL: "postgres://db.internal/clawdeck" });
    expect(() => loadSecrets(env)).toThrow(MissingSecretsError);
    expect(() => loadSecrets(env)).toThrow(/AUTH_SECRET and CLAWDECK_ENCRYPTION_KEY must be set/);
  });
});
