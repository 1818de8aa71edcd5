import fs from "node:fs";
import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname) };

/**
 * The integration tests that run on PGlite when the PostgreSQL leg runs every test beside it
 * (`CLAWDECK_PGLITE_TESTS=both-drivers`, as `npm test` does with `TEST_DATABASE_URL`): where the two drivers
 * differ (the journal's and the feed's group commit and notifications, prepared statements, the data folder's lock
 * and permissions, migrations from empty, concurrent claims and single-use grants, money and time-zone arithmetic,
 * the queries a start makes), and a smoke set of every area (the agent loop, chats, the door, missions, policy, the
 * usage cards, event streams). Without it, every test runs on PGlite.
 */
const onBothDrivers = [
  "journal-writer",
  "feed-writer",
  "feed-stream",
  "prepared-statements",
  "folder-lock",
  "file-permissions",
  "bootstrap",
  "run-state",
  "approvals",
  "usage-ledger",
  "workspace-time-zone",
  "start-path-queries",
  "run-facts-cache",
  "runtime",
  "chat-routes",
  "door-sessions",
  "missions",
  "deny-means-deny",
  "taint-across-turns",
  "usage-cards",
  "streams",
  "computers",
  "computer-compute",
  "telemetry",
].map((name) => `tests/integration/${name}.test.ts`);
for (const file of onBothDrivers) if (!fs.existsSync(file)) throw new Error(`${file} is listed to run on both drivers but does not exist`);

const integration = (name: string, driver: "pglite" | "postgres") => ({
  resolve: { alias },
  test: {
    name,
    include: driver === "pglite" && process.env.CLAWDECK_PGLITE_TESTS === "both-drivers" ? onBothDrivers : ["tests/integration/**/*.test.ts"],
    // What only PostgreSQL has (a second connection or process on one database, the driver's prepared statements).
    exclude: driver === "pglite" ? ["tests/integration/postgres/**"] : [],
    globalSetup: ["tests/support/global-setup.ts"],
    // Mission turns of the offline model at full speed: the tests read what they did, not watch them.
    env: { TEST_DRIVER: driver, CLAWDECK_OFFLINE_MISSION_MS: "0" },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks" as const,
    // next-auth imports `next/server` without an extension, which Node's ESM resolver refuses.
    server: { deps: { inline: ["next-auth", "@auth/core"] } },
  },
});

export default defineConfig({
  test: {
    projects: [
      { resolve: { alias }, test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node" } },
      integration("integration-pglite", "pglite"),
      ...(process.env.TEST_DATABASE_URL ? [integration("integration-postgres", "postgres")] : []),
    ],
  },
});
