import fs from "node:fs";
import path from "node:path";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import * as schema from "./schema";
import { lockDataFolder } from "./folder-lock";
import { queryRecorder } from "./query-count";
import { preparedByDefault } from "./prepared";
import { ensurePrivateFolder, makeTreePrivate, withPrivateUmask } from "../private-files";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** What every query function takes first: the database or an open transaction. */
export type Db = Database | Transaction;

export type DriverName = "pglite" | "postgres";

export interface DatabaseHandle {
  db: Database;
  driver: DriverName;
  /** Where the data lives: a folder (PGlite) or the server URL without its password. */
  location: string;
  migrate(): Promise<void>;
  close(): Promise<void>;
}

export type DatabaseTarget = { driver: "pglite"; dataDir: string } | { driver: "postgres"; url: string; max?: number };

export const migrationsFolder = () => path.join(process.cwd(), "drizzle");

/** Key for the advisory lock that serialises migrations and first-start setup across processes. */
export const SETUP_LOCK_KEY = 7_004_211;

export function targetFromEnv(env: { DATABASE_URL?: string; CLAWDECK_DATA_DIR: string }): DatabaseTarget {
  return env.DATABASE_URL
    ? { driver: "postgres", url: env.DATABASE_URL }
    : { driver: "pglite", dataDir: path.join(path.resolve(env.CLAWDECK_DATA_DIR), "pglite") };
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres";
  }
}

export async function openDatabase(target: DatabaseTarget): Promise<DatabaseHandle> {
  return target.driver === "pglite" ? openPglite(target.dataDir) : openPostgres(target.url, target.max);
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  // The lock lives beside the PGlite folder so that a refused second opener touches nothing inside it.
  const parent = path.dirname(dataDir);
  ensurePrivateFolder(parent);
  const release = lockDataFolder(parent);
  try {
    // Private before and after opening: PGlite writes its first files world-readable (0666) whatever the umask.
    makeTreePrivate(parent);
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    const client = await withPrivateUmask(() => PGlite.create(dataDir));
    makeTreePrivate(parent);
    const db = drizzle({ client, schema, casing: "snake_case", logger: queryRecorder });
    return {
      db: db as unknown as Database,
      driver: "pglite",
      location: dataDir,
      migrate: () => migrate(db, { migrationsFolder: migrationsFolder() }),
      async close() {
        try {
          await client.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

async function openPostgres(url: string, max = 10): Promise<DatabaseHandle> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const { migrate } = await import("drizzle-orm/postgres-js/migrator");
  const client = postgres(url, { max, onnotice: () => {} });
  const db = drizzle({ client: preparedByDefault(client), schema, casing: "snake_case", logger: queryRecorder });
  return {
    db: db as unknown as Database,
    driver: "postgres",
    location: redactUrl(url),
    async migrate() {
      // Several app instances may start at once: one migrates, the others wait for it. A
      // one-connection client keeps the session-level advisory lock on the migrating session.
      const single = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await single`select pg_advisory_lock(${SETUP_LOCK_KEY})`;
        await migrate(drizzle({ client: single, schema, casing: "snake_case" }), { migrationsFolder: migrationsFolder() });
      } finally {
        await single.end({ timeout: 5 });
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/** Migrations in the folder, and how many of them the database has applied. */
export async function migrationStatus(db: Db): Promise<{ expected: number; applied: number }> {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), "meta", "_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  const { sql } = await import("drizzle-orm");
  const rows = await db.execute<{ count: number }>(sql`select count(*)::int as count from drizzle.__drizzle_migrations`);
  return { expected: journal.entries.length, applied: Number(rowsOf<{ count: number }>(rows)[0]?.count ?? 0) };
}

/** Rows of a raw `db.execute` result: PGlite wraps them in `{ rows }`, postgres.js returns the array. */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}
