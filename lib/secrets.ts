import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Env } from "./env";
import { ensurePrivateFolder, PRIVATE_FILE_MODE } from "./private-files";

export interface ServerSecrets {
  authSecret: string;
  /** 32-byte key for AES-256-GCM encryption of connection credentials. */
  encryptionKey: Buffer;
  /** Where each came from, for the start-up banner (never the values). */
  origin: { authSecret: "env" | "data-folder"; encryptionKey: "env" | "data-folder" };
}

export class MissingSecretsError extends Error {
  constructor(readonly missing: string[]) {
    super(
      `${missing.join(" and ")} must be set when running in production on PostgreSQL ` +
        `(secrets cannot be kept in a local data folder that other instances do not share). ` +
        `Generate each with: openssl rand -base64 32`,
    );
    this.name = "MissingSecretsError";
  }
}

const SECRETS_FILE = "secrets.json";

/**
 * Secrets come from the environment; when absent they are generated once and
 * kept in the data folder, so sessions and encrypted credentials survive a
 * restart. Production on PostgreSQL must set them: instances share no folder.
 */
export function loadSecrets(env: Env): ServerSecrets {
  const missing = [
    ...(env.AUTH_SECRET ? [] : ["AUTH_SECRET"]),
    ...(env.CLAWDECK_ENCRYPTION_KEY ? [] : ["CLAWDECK_ENCRYPTION_KEY"]),
  ];
  if (missing.length > 0 && env.DATABASE_URL && env.NODE_ENV === "production") throw new MissingSecretsError(missing);

  let stored: { authSecret?: string; encryptionKey?: string } = {};
  if (missing.length > 0) stored = readOrCreateStored(path.resolve(env.CLAWDECK_DATA_DIR));

  return {
    authSecret: env.AUTH_SECRET ?? stored.authSecret!,
    encryptionKey: Buffer.from(env.CLAWDECK_ENCRYPTION_KEY ?? stored.encryptionKey!, "base64"),
    origin: {
      authSecret: env.AUTH_SECRET ? "env" : "data-folder",
      encryptionKey: env.CLAWDECK_ENCRYPTION_KEY ? "env" : "data-folder",
    },
  };
}

function readOrCreateStored(folder: string): { authSecret: string; encryptionKey: string } {
  const file = path.join(folder, SECRETS_FILE);
  ensurePrivateFolder(folder);
  const fresh = {
    authSecret: crypto.randomBytes(32).toString("base64"),
    encryptionKey: crypto.randomBytes(32).toString("base64"),
  };
  try {
    // `wx` makes creation atomic: if two starts race, both end up reading the winner's file.
    fs.writeFileSync(file, JSON.stringify(fresh, null, 2), { flag: "wx", mode: 0o600 });
    return fresh;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // A file written by an older version, or copied in, may be readable by others.
  fs.chmodSync(file, PRIVATE_FILE_MODE);
  const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as { authSecret?: unknown; encryptionKey?: unknown };
  if (typeof parsed.authSecret !== "string" || typeof parsed.encryptionKey !== "string") {
    throw new Error(`${file} is damaged: remove it to generate new secrets (existing sessions and connections will stop working).`);
  }
  return { authSecret: parsed.authSecret, encryptionKey: parsed.encryptionKey };
}
