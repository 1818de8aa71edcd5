import { sql } from "drizzle-orm";
import { migrationStatus } from "./db/client";
import { getServer } from "./server";

export interface Health {
  status: "ok" | "unavailable";
  database: { driver?: string; reachable: boolean; migrations?: { applied: number; expected: number; current: boolean } };
  error?: { code: string; message: string };
}

/** Database reachable and every migration applied. Says nothing secret (no URL, no keys). */
export async function checkHealth(): Promise<Health> {
  try {
    const server = await getServer();
    await server.db.execute(sql`select 1`);
    const { applied, expected } = await migrationStatus(server.db);
    const current = applied === expected;
    return {
      status: current ? "ok" : "unavailable",
      database: { driver: server.handle.driver, reachable: true, migrations: { applied, expected, current } },
    };
  } catch {
    return {
      status: "unavailable",
      database: { reachable: false },
      error: { code: "unavailable:database", message: "The database cannot be reached." },
    };
  }
}
