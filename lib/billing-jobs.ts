import type { Db } from "./db/client";
import { raiseBudgetAlerts } from "./billing/budgets";
import { reconcileUsage } from "./runs/reconcile";
import { logError } from "./log";

/** One pass of the periodic billing work: reconcile finished runs with the ledger, then raise due budget alerts. */
export async function runBillingJobs(db: Db, now = new Date()) {
  const reconciled = await reconcileUsage(db, { now });
  const budgetsChecked = await raiseBudgetAlerts(db, now);
  return { reconciled, budgetsChecked };
}

/** Runs the billing jobs every `intervalMs` (a minute by default) in the background; returns a stop function. */
export function startBillingJobs(db: Db, intervalMs = 60_000): () => void {
  let running = false;
  const tick = () => {
    // A slow pass (a large backlog on first start) is not overlapped by the next one.
    if (running) return;
    running = true;
    runBillingJobs(db)
      .catch((error: unknown) => logError("The billing jobs failed", error))
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
