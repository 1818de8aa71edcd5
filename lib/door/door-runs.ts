import type { RunKind } from "../runtime/types";
import { doorRunDecision, endLapsedDoorRun, settleDoorRun } from "./door-calls";
import { expireIdleDoorSessions } from "./door-sessions";

/**
 * The door's runs, as the runtime meets them: a door call's approval is used by its caller (waiting, or repeating
 * the call), so the runtime does not resume it; a refusal is recorded here, and so is an approval whose grant lapsed
 * with nobody repeating the call. Every sweep ends the door sessions left idle.
 */
export const doorRuns: RunKind = {
  async settleDecided(deps, runId) {
    const decision = await doorRunDecision(deps.db, runId);
    if (decision === "approved") return (await endLapsedDoorRun(deps, runId)) && false;
    if (decision) return (await settleDoorRun(deps, runId)) !== null;
    return null;
  },
  async sweep(deps) {
    await expireIdleDoorSessions(deps);
  },
};
