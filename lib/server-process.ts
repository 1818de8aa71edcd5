import { startBillingJobs } from "./billing-jobs";
import { startAuditRetention } from "./audit-log/retention";
import { getServer, stopServer } from "./server";

/**
 * Runs once when the Node.js server starts: opens and migrates the database
 * (creating the demo workspace on an empty one) before the first request,
 * and closes it cleanly on shutdown so PGlite flushes and releases its folder.
 */
export async function startServerProcess(): Promise<void> {
  try {
    const server = await getServer();
    // Runs orphaned by a crash of this or another process are failed with a reason, never left "running".
    await server.runtime.sweep();
    server.runtime.startSweeper();
    // Finished runs are reconciled with the usage ledger, and budget alerts raised, every minute.
    startBillingJobs(server.db);
    // Audit entries older than each workspace's retention (a year by default) are removed every hour.
    startAuditRetention(server.db);
  } catch (error) {
    console.error(`\n  Clawdeck cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      void stopServer().finally(() => process.exit(0));
    });
  }
}
