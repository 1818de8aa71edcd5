import { and, eq, inArray } from "drizzle-orm";
import { agentRuns } from "../db/schema";
import { AppError } from "../errors";
import type { Approval, Role } from "../db/schema";
import { assertCanCancelRun } from "../access/access";
import { CircuitBreakers } from "../safety/dispatch";
import { expireOverdueApprovals, listResumableRuns } from "../safety/approvals";
import { controlTopic, driveRun, type RuntimeDeps } from "./runner";
import { claimResume, createChatRun, endRunFromOutside, getRun, listOrphanedRuns } from "./runs";

export interface Runtime {
  deps: RuntimeDeps;
  /** Stores the message, starts the run in the background, and returns at once. */
  startChatRun(input: { workspaceId: string; sessionId: string; userId: string; text: string }): Promise<{ runId: string }>;
  cancelRun(workspaceId: string, runId: string, by: { userId: string; role: Role }): Promise<{ runId: string; state: string }>;
  /**
   * Continues a suspended run whose approval was decided, if this process
   * wins the claim. Returns whether it did; racing callers get false.
   */
  resumeRun(runId: string): Promise<boolean>;
  /**
   * Fails runs whose process died (expired lease), expires overdue
   * approvals, and resumes decided runs nobody resumed (a crash between
   * decision and resume). Returns what it did.
   */
  sweep(): Promise<{ reaped: number; expired: number; resumed: number }>;
  startSweeper(intervalMs?: number): () => void;
  /** Waits for every run this process drives (tests, shutdown). */
  drain(): Promise<void>;
  /** Aborts the runs this process drives without ending them, as a crash would. */
  abandonAll(): void;
}

export function createRuntime(input: Omit<RuntimeDeps, "breakers"> & { breakers?: CircuitBreakers }): Runtime {
  const deps: RuntimeDeps = { ...input, breakers: input.breakers ?? new CircuitBreakers() };
  const active = new Map<string, { done: Promise<void>; controller: AbortController }>();
  deps.delivery = { startRun: (runId) => drive(runId) };

  function drive(runId: string, resume?: Approval) {
    const controller = new AbortController();
    const done = driveRun(deps, runId, controller.signal, resume)
      .catch((error: unknown) => console.error(`Run ${runId} driver crashed`, error))
      .finally(() => active.delete(runId));
    active.set(runId, { done, controller });
  }

  return {
    deps,
    async startChatRun(input) {
      const { runId } = await createChatRun(deps.db, { ...input, owner: deps.instanceId });
      drive(runId);
      return { runId };
    },

    async cancelRun(workspaceId, runId, by) {
      const run = await getRun(deps.db, workspaceId, runId);
      assertCanCancelRun(by, run);
      if (run.state === "suspended" || run.state === "queued") {
        await endRunFromOutside(deps.db, deps.bus, runId, { from: [run.state], to: "cancelled", code: "cancelled", message: "Stopped by a person." });
        return { runId, state: "cancelled" };
      }
      if (run.state !== "running") throw new AppError("conflict:run", `This run has already ${run.state === "succeeded" ? "finished" : run.state}.`);
      const [marked] = await deps.db
        .update(agentRuns)
        .set({ cancelRequestedAt: new Date() })
        .where(and(eq(agentRuns.id, runId), inArray(agentRuns.state, ["running"])))
        .returning({ id: agentRuns.id });
      if (!marked) throw new AppError("conflict:run", "This run has already finished.");
      const local = active.get(runId);
      if (local) local.controller.abort("cancel");
      else await deps.bus.publish(controlTopic(runId), { action: "cancel" });
      return { runId, state: "cancelling" };
    },

    async resumeRun(runId) {
      if (active.has(runId)) return false;
      const approval = await claimResume(deps.db, deps.bus, runId, deps.instanceId);
      if (!approval) return false;
      drive(runId, approval);
      return true;
    },

    async sweep() {
      let reaped = 0;
      for (const runId of await listOrphanedRuns(deps.db)) {
        if (active.has(runId)) continue;
        const ended = await endRunFromOutside(deps.db, deps.bus, runId, {
          from: ["queued", "running"],
          to: "failed",
          code: "internal:lease_expired",
          message: "The server process running this agent stopped before the run finished.",
          staleOnly: true,
        });
        if (ended) reaped += 1;
      }
      const expired = (await expireOverdueApprovals(deps.db, deps.bus)).length;
      let resumed = 0;
      for (const runId of await listResumableRuns(deps.db)) {
        if (await this.resumeRun(runId)) resumed += 1;
      }
      return { reaped, expired, resumed };
    },

    startSweeper(intervalMs = 10_000) {
      const timer = setInterval(() => {
        this.sweep().catch((error: unknown) => console.error("The run sweeper failed", error));
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
}
