import { sql } from "drizzle-orm";
import { migrationStatus } from "./db/client";
import { getServer } from "./server";

export interface Health {
  status: "ok" | "unavailable";
  database: { driver?: string; reachable: boolean; migrations?: { applied: number; expected: number; current: boolean } };
  /** Agents' computers: whether commands can run here, and if not, why (the rest of the app works without them). */
  computers?: { available: boolean; reason?: string };
  error?: { code: string; message: string };
}

/** Database reachable and every migration applied. Says nothing secret (no URL, no keys). */
export async function checkHealth(): Promise<Health> {
  try {
    const server = await getServer();
    await server.db.execute(sql`select 1`);
    const { applied, expected } = await migrationStatus(server.db);
    const current = applied === expected;
    const computers = await server.runtime.deps.computers?.availability();
    return {
      status: current ? "ok" : "unavailable",
      database: { driver: server.handle.driver, reachable: true, migrations: { applied, expected, current } },
      computers: computers ? (computers.ok ? { available: true } : { available: false, reason: computers.reason }) : { available: false, reason: "This server has no computers for agents." },
    };
  } catch {
    return {
      status: "unavailable",
      database: { reachable: false },
      error: { code: "unavailable:database", message: "The database cannot be reached." },
    };
  }
}
