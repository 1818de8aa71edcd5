import { AppError } from "../errors";
import type { Approval, Role } from "../db/schema";
import { assertCanCancelRun } from "../access/access";
import { runFactsCache } from "../access/run-facts-cache";
import { CircuitBreakers } from "../safety/dispatch";
import { expireOverdueApprovals } from "../safety/approvals";
import { controlTopic, driveRun } from "./runner";
import { governApproval, unjudgedApprovalOf } from "../safety/governor";
import { getRun, listOrphanedRuns } from "../runs/run-reads";
import {
  claimOrphanForRecovery,
  claimResume,
  createChatRun,
  createWakeRuns,
  endRunFromOutside,
  listResumableRuns,
  requestCancel,
  stoppedBy,
  type WakeInput,
} from "../runs";
import type { RuntimeDeps } from "./types";
import { logError } from "../log";

export interface Runtime {
  deps: RuntimeDeps;
  /**
   * A person's message in their chat: stores it, starts the run in the
   * background, and returns at once. With `title`, a chat without one is
   * named with it in the same statement. Refused (`not_found:session`, or
   * `forbidden:session` for a `role` that may read the chat) unless the chat
   * is theirs.
   */
  startChatRun(
    input: { workspaceId: string; sessionId: string; userId: string; role?: Role; text: string; title?: string },
    options?: {
      /**
       * Called with the run's id once it is written and before it is driven: a follower that subscribes here (the
       * answer to the message) receives every event of the run from memory and need read nothing first. It must
       * subscribe before it returns (synchronously), or the run may have begun without it.
       */
      beforeDrive?: (runId: string) => void;
    },
  ): Promise<{ runId: string }>;
  /**
   * Gives agents a turn on a message (a room post, a mission step, a door):
   * creates their runs and drives them. Paused agents get none; they are returned.
   */
  wake(input: Omit<WakeInput, "owner">): Promise<{ runIds: string[]; paused: { id: string; handle: string }[] }>;
  cancelRun(workspaceId: string, runId: string, by: { userId: string; role: Role; name?: string }): Promise<{ runId: string; state: string }>;
  /**
   * Continues a suspended run whose approval was decided, if this process
   * wins the claim. Returns whether it did; racing callers get false.
   */
  resumeRun(runId: string): Promise<boolean>;
  /**
   * Carries on runs whose process died after they resumed on an approval,
   * fails the other runs whose process died (expired lease), expires overdue
   * approvals, and resumes decided runs nobody resumed (a crash between
   * decision and resume). Returns what it did.
   */
  sweep(): Promise<{ reaped: number; recovered: number; expired: number; resumed: number }>;
  startSweeper(intervalMs?: number): () => void;
  /** Drives runs this process just created and claimed (a mission's nodes). */
  startRuns(runIds: string[]): void;
  /** Stops a running run at its next step, wherever it is driven; false when it was not running. */
  stopRun(runId: string, reason: string): Promise<boolean>;
  /**
   * Called once when a run this process drives has ended, suspended or was
   * lost (as soon as it ended well). `missionRunId` is given when the driver
   * knows it (undefined: not known here; null: no mission).
   */
  onRunSettled(listener: (runId: string, missionRunId?: string | null) => void): void;
  /** Extra work for every sweep (missions), run after the runs' own. */
  onSweep(task: () => Promise<void>): void;
  /** Waits for every run this process drives (tests, shutdown). */
  drain(): Promise<void>;
  /** Aborts the runs this process drives without ending them, as a crash would. */
  abandonAll(): void;
}

export function createRuntime(input: Omit<RuntimeDeps, "breakers"> & { breakers?: CircuitBreakers }): Runtime {
  const deps: RuntimeDeps = { ...input, breakers: input.breakers ?? new CircuitBreakers() };
  const active = new Map<string, { done: Promise<void>; controller: AbortController }>();
  const settledListeners: ((runId: string, missionRunId?: string | null) => void)[] = [];
  const sweepTasks: (() => Promise<void>)[] = [];

  function drive(runId: string, options: { resume?: Approval; recover?: boolean } = {}) {
    const controller = new AbortController();
    let told = false;
    const tell = (missionRunId?: string | null) => {
      if (told) return;
      told = true;
      for (const listener of settledListeners) listener(runId, missionRunId);
    };
    let suspended = false;
    const done = driveRun(deps, runId, { ...options, signal: controller.signal, startRuns: (ids) => ids.forEach((id) => drive(id)), onEnded: tell })
      .then((outcome) => {
        suspended = outcome === "suspended";
      })
      .catch((error: unknown) => logError(`Run ${runId} driver crashed`, error))
      .finally(() => {
        active.delete(runId);
        tell(undefined);
      })
      // A run that suspended may be decided by the governor: then it carries on at once. Other runs have nothing for it.
      .then(() => (suspended ? govern(runId) : undefined))
      .catch((error: unknown) => logError(`The governor failed on run ${runId}`, error));
    active.set(runId, { done, controller });
  }

  async function govern(runId: string): Promise<void> {
    const approvalId = await unjudgedApprovalOf(deps.db, runId);
    if (!approvalId) return;
    if ((await governApproval(deps, approvalId)) !== "people") await runtime.resumeRun(runId);
  }

  async function stopRun(runId: string, reason: string): Promise<boolean> {
    if (!(await requestCancel(deps.db, runId, reason))) return false;
    const local = active.get(runId);
    if (local) local.controller.abort("cancel");
    else await deps.bus.publish(controlTopic(runId), { action: "cancel" });
    return true;
  }

  const runtime: Runtime = {
    deps,
    async startChatRun(input, options) {
      const { runId } = await createChatRun(deps.db, { ...input, owner: deps.instanceId });
      // Its streams in this process (the person's own, opened next) need not read what is known here.
      runFactsCache(deps.db).remember(input.workspaceId, runId, { userId: input.userId, trigger: "chat", sessionId: input.sessionId });
      try {
        options?.beforeDrive?.(runId);
      } finally {
        drive(runId);
      }
      return { runId };
    },

    async wake(input) {
      const result = await createWakeRuns(deps.db, { ...input, owner: deps.instanceId });
      for (const runId of result.runIds) drive(runId);
      return result;
    },

    async cancelRun(workspaceId, runId, by) {
      const run = await getRun(deps.db, workspaceId, runId);
      assertCanCancelRun(by, run);
      const reason = stoppedBy(by.name);
      if (run.state === "suspended") {
        if (await endRunFromOutside(deps.db, deps.bus, runId, { from: [run.state], to: "cancelled", code: "cancelled", message: reason })) {
          return { runId, state: "cancelled" };
        }
        throw new AppError("conflict:run", "This run changed state meanwhile; look again.");
      }
      if (run.state !== "running") throw new AppError("conflict:run", `This run has already ${run.state === "succeeded" ? "finished" : run.state}.`);
      if (!(await stopRun(runId, reason))) throw new AppError("conflict:run", "This run has already finished.");
      return { runId, state: "cancelling" };
    },

    startRuns(runIds) {
      for (const runId of runIds) drive(runId);
    },

    stopRun,

    onRunSettled(listener) {
      settledListeners.push(listener);
    },

    onSweep(task) {
      sweepTasks.push(task);
    },

    async resumeRun(runId) {
      if (active.has(runId)) return false;
      for (const kind of deps.runKinds ?? []) {
        const settled = await kind.settleDecided(deps, runId);
        if (settled !== null) return settled;
      }
      // A paused agent's run is not claimed: it stays suspended until the agent is resumed.
      const approval = await claimResume(deps.db, deps.bus, runId, deps.instanceId);
      if (!approval) return false;
      drive(runId, { resume: approval });
      return true;
    },

    async sweep() {
      let reaped = 0;
      let recovered = 0;
      for (const runId of await listOrphanedRuns(deps.db)) {
        if (active.has(runId)) continue;
        // A run that resumed on an approval may have had its effect: carry it on rather than fail it.
        const approval = await claimOrphanForRecovery(deps.db, deps.bus, runId, deps.instanceId);
        // Its agent is paused: it is carried on once the agent is resumed, not failed meanwhile.
        if (approval === "agent_paused") continue;
        if (approval) {
          drive(runId, { resume: approval, recover: true });
          recovered += 1;
          continue;
        }
        const ended = await endRunFromOutside(deps.db, deps.bus, runId, {
          from: ["running"],
          to: "failed",
          code: "internal:lease_expired",
          message: "The server process running this agent stopped before the run finished.",
          staleOnly: true,
        });
        if (ended) reaped += 1;
      }
      const expired = (await expireOverdueApprovals(deps.db, deps.bus)).length;
      for (const kind of deps.runKinds ?? []) await kind.sweep?.(deps);
      let resumed = 0;
      for (const runId of await listResumableRuns(deps.db)) {
        if (await this.resumeRun(runId)) resumed += 1;
      }
      for (const task of sweepTasks) await task();
      return { reaped, recovered, expired, resumed };
    },

    startSweeper(intervalMs = 10_000) {
      const timer = setInterval(() => {
        this.sweep().catch((error: unknown) => logError("The run sweeper failed", error));
      }, intervalMs);
      timer.unref();
      return () => clearInterval(timer);
    },

    async drain() {
      while (active.size > 0) await Promise.all([...active.values()].map((a) => a.done));
    },

    abandonAll() {
      for (const { controller } of active.values()) controller.abort("lost");
    },
  };
  return runtime;
}
