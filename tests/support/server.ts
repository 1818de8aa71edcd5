import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, inject } from "vitest";
import { encode } from "next-auth/jwt";
import { createChat } from "../../lib/auth/sessions";
import { LOCK_FILE } from "../../lib/db/folder-lock";
import { getServer, stopServer, type Server } from "../../lib/server";
import { withDatabase } from "./global-setup";

export const OWNER_EMAIL = "owner@test.local";
export const OWNER_PASSWORD = "owner-password-1";

/**
 * Gives the test file a server on a fresh database copied from the migrated
 * template: PGlite by default, PostgreSQL in the leg that sets TEST_DRIVER.
 * The real start-up path runs (migrations check, first-start setup).
 */
/**
 * One server for a test file, on its own copy of the migrated template database. `env`: settings of this file's
 * server (read once, as the app reads its environment at start), removed again when the file ends.
 */
export function useTestServer(options: { env?: Record<string, string> } = {}): () => Server {
  let server: Server | undefined;
  let cleanup: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const id = crypto.randomBytes(5).toString("hex");
    delete process.env.DATABASE_URL;
    if (process.env.TEST_DRIVER === "postgres") {
      const template = inject("postgresTemplate");
      const templateName = new URL(template).pathname.slice(1);
      // Named after this run's template, so a run's teardown never touches another run's databases.
      const name = `${templateName}_${id}`;
      const admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database ${name} template ${templateName}`);
      await admin.end();
      process.env.DATABASE_URL = withDatabase(template, name);
      cleanup = async () => {
        const again = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
        await again.unsafe(`drop database if exists ${name} with (force)`);
        await again.end();
      };
    } else {
      const dir = path.join(path.dirname(inject("pgliteTemplate")), `file-${id}`);
      fs.cpSync(inject("pgliteTemplate"), dir, { recursive: true, filter: (src) => path.basename(src) !== LOCK_FILE });
      process.env.CLAWDECK_DATA_DIR = dir;
      cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
    }
    process.env.CLAWDECK_OWNER_EMAIL = OWNER_EMAIL;
    process.env.CLAWDECK_OWNER_PASSWORD = OWNER_PASSWORD;
    process.env.AUTH_SECRET = crypto.randomBytes(32).toString("base64");
    process.env.CLAWDECK_ENCRYPTION_KEY = crypto.randomBytes(32).toString("base64");
    Object.assign(process.env, options.env);
    server = await getServer();
  });

  afterAll(async () => {
    await stopServer();
    for (const name of Object.keys(options.env ?? {})) delete process.env[name];
    await cleanup?.();
  });

  return () => {
    if (!server) throw new Error("The test server is not started yet");
    return server;
  };
}

/** A session cookie for a user, made the way sign-in makes it: a server-side session whose id the cookie carries. */
export async function sessionCookie(server: Server, user: { id: string; email: string; name: string }): Promise<string> {
  const salt = "authjs.session-token";
  const sid = await createChat(server.db, user.id);
  const token = await encode({ token: { sub: user.id, sid, email: user.email, name: user.name }, secret: server.secrets.authSecret, salt });
  return `${salt}=${token}`;
}

export const APP_ORIGIN = "http://localhost:3000";

/**
 * A request as the app's own page sends it: to APP_ORIGIN, with the `Host` a
 * server sees and, on writes, the `Origin` a browser adds (both overridable).
 */
export function jsonRequest(
  url: string,
  init: { method?: string; body?: unknown; cookie?: string; workspace?: string; headers?: Record<string, string> } = {},
): Request {
  const method = init.method ?? "GET";
  const headers: Record<string, string> = {
    host: new URL(APP_ORIGIN).host,
    ...(method === "GET" || method === "HEAD" ? {} : { origin: APP_ORIGIN }),
    ...init.headers,
  };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.workspace) headers["x-clawdeck-workspace"] = init.workspace;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  return new Request(new URL(url, APP_ORIGIN), {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

export function params<T extends Record<string, string>>(value: T) {
  return { params: Promise.resolve(value) };
}
