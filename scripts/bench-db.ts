// Throwaway databases for benchmarks: PGlite in a temporary folder, or a fresh database on a local PostgreSQL server.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { openDatabase, type DatabaseHandle } from "../lib/db/client";
import { createLocalBus, createPostgresBus, type EventBus } from "../lib/db/bus";

export interface Target {
  handle: DatabaseHandle;
  bus: EventBus;
  /** The throwaway database's address, on PostgreSQL (a second instance opens its own connections to it). */
  url?: string;
  dispose(): Promise<void>;
}

export async function openPgliteTarget(): Promise<Target> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "clawdeck-bench-"));
  let handle: DatabaseHandle | undefined;
  try {
    handle = await openDatabase({ driver: "pglite", dataDir: path.join(root, "pglite") });
    await handle.migrate();
  } catch (error) {
    await handle?.close().catch(() => undefined);
    fs.rmSync(root, { recursive: true, force: true });
    throw error;
  }
  const opened = handle;
  const bus = createLocalBus();
  return {
    handle: opened,
    bus,
    async dispose() {
      try {
        await bus.close();
        await opened.close();
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

export async function openPostgresTarget(serverUrl: string, prefix = "clawdeck_benchrt"): Promise<Target> {
  const name = `${prefix}_${crypto.randomBytes(5).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const drop = async () => {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end({ timeout: 5 });
  };
  await admin.unsafe(`create database ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  let handle: DatabaseHandle | undefined;
  let bus: EventBus | undefined;
  try {
    handle = await openDatabase({ driver: "postgres", url });
    await handle.migrate();
    bus = await createPostgresBus(url);
  } catch (error) {
    await bus?.close().catch(() => undefined);
    await handle?.close().catch(() => undefined);
    await drop();
    throw error;
  }
  const [opened, openedBus] = [handle, bus];
  return {
    handle: opened,
    bus: openedBus,
    url,
    async dispose() {
      try {
        await openedBus.close();
        await opened.close();
      } finally {
        await drop();
      }
    },
  };
}

