// Applies the migrations in ./drizzle to the configured database (PGlite folder or DATABASE_URL).
import { getEnv } from "../lib/env";
import { migrationStatus, openDatabase, targetFromEnv, type DatabaseHandle } from "../lib/db/client";

let handle: DatabaseHandle | undefined;
try {
  handle = await openDatabase(targetFromEnv(getEnv()));
  await handle.migrate();
  const { applied, expected } = await migrationStatus(handle.db);
  console.log(`Migrations applied on ${handle.driver} (${handle.location}): ${applied} of ${expected}.`);
} catch (error) {
  console.error(`Migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await handle?.close();
}
