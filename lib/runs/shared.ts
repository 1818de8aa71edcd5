// What the run-state modules share: which states are in flight, and a lease from now.
import { sql } from "drizzle-orm";
import { LEASE_SECONDS } from "../journal/run-journal-store";

export const activeStates = ["running"] as const;

/** A lease from now: what a run's driver holds, and renews, while it works. */
export const lease = () => sql`now() + make_interval(secs => ${LEASE_SECONDS})`;
