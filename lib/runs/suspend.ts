// A run that waits: suspended with its checkpoint for a reviewer, claimed once to resume, carried on after a crash,
// parked between two calls of a door session.
import { and, asc, eq, inArray, isNull, lt, ne, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, agents, approvals, steps, workspaces, type AgentRun, type Approval } from "../db/schema";
import { AppError } from "../errors";
import { cameThroughDoor, fourEyesApplies } from "../safety/approvals";
import type { ApprovalCategory } from "../safety/policy";
import type { CAP_CATEGORY } from "../billing/cap-words";
import { workspacePolicy } from "../safety/policy";
import { createToolRegistry, type ToolRegistry } from "../tools/registry";
import type { ToolPreview } from "../tools/types";
import type { EventBus } from "../db/bus";
import { withDbRetry } from "../db/retry";
import { insertRunEvents, notifyRun } from "../journal/run-journal-store";
import type { LoopState } from "../runtime/types";
import { lease } from "./shared";

export interface NewApproval {
  /** The step of the gated call; null for a request that is no tool call (a run at its cap, `lib/billing/caps.ts`). */
  stepId: string | null;
  callId: string;
  tool: string;
  input: Record<string, unknown>;
  category: ApprovalCategory | typeof CAP_CATEGORY;
  reason: string;
  preview: ToolPreview;
  fingerprint: string;
}

/**
 * Suspends the run in one transaction: the approval (with the person behind
 * the chain and the agents it came through), the step waiting for it,
 * `approval_required` then `run_suspended` in the journal, and the
 * checkpoint of the whole loop state. Nothing of the call has run. The
 * approval records whether four eyes applies under the policy of this moment
 * (`tools` gives the effects a tainted call is judged by).
 */
export async function suspendWithCheckpoint(
  db: Db,
  bus: EventBus,
  input: { run: AgentRun; owner: string; state: LoopState; approval: NewApproval; tools?: ToolRegistry },
): Promise<{ approvalId: string }> {
  const { run, state, approval: pending } = input;
  const effects = (input.tools ?? createToolRegistry()).get(pending.tool)?.effects;
  const { approvalId, seq } = await withDbRetry(() =>
    db.transaction(async (tx) => {
      const [ws] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, run.workspaceId));
      const policy = workspacePolicy(ws?.settings);
      const ttl = policy.approvalTtlSeconds;
      const [approval] = await tx
        .insert(approvals)
        .values({
          workspaceId: run.workspaceId,
          runId: run.id,
          stepId: pending.stepId,
          agentId: run.agentId,
          requestedByUserId: run.onBehalfOfUserId ?? run.userId,
          onBehalfOfUserId: run.onBehalfOfUserId,
          via: run.via,
          category: pending.category,
          tool: pending.tool,
          callId: pending.callId,
          input: pending.input,
          preview: pending.preview,
          fingerprint: pending.fingerprint,
          taintSources: state.taint,
          // Going past a cap always needs someone other than the person the run acts for.
          fourEyes: pending.category === "budget" || fourEyesApplies(policy.fourEyesCategories, pending.category, effects) || cameThroughDoor(run.via),
          expiresAt: sql`now() + make_interval(secs => ${ttl})`,
        })
        .returning({ id: approvals.id, expiresAt: approvals.expiresAt });
      if (pending.stepId) await tx.update(steps).set({ status: "awaiting_approval", fingerprint: pending.fingerprint }).where(eq(steps.id, pending.stepId));
      const seq = await insertRunEvents(tx, run.id, input.owner, [
        {
          type: "approval_required",
          payload: {
            approvalId: approval!.id,
            stepId: pending.stepId,
            callId: pending.callId,
            tool: pending.tool,
            category: pending.category,
            reason: pending.reason,
            preview: pending.preview,
            taintSources: state.taint,
            expiresAt: approval!.expiresAt.toISOString(),
          },
        },
        { type: "run_suspended", payload: { approvalId: approval!.id } },
      ]);
      const [suspended] = await tx
        .update(agentRuns)
        .set({ state: "suspended", checkpoint: state, claimedBy: null, leaseExpiresAt: null })
        .where(and(eq(agentRuns.id, run.id), eq(agentRuns.claimedBy, input.owner), eq(agentRuns.state, "running")))
        .returning({ id: agentRuns.id });
      if (!suspended) throw new AppError("conflict:run", "The run was taken over while suspending.");
      return { approvalId: approval!.id, seq };
    }),
  );
  await notifyRun(bus, run.id, seq);
  return { approvalId };
}

/**
 * Whether the agent of a run is paused, read under a share lock held to the
 * end of the transaction: a pause committed before wins, one committed after
 * waits until the run was claimed (and then applies to a running run).
 */
async function agentOfRunPaused(tx: Db, runId: string): Promise<boolean> {
  const [agent] = await tx
    .select({ status: agents.status })
    .from(agents)
    .innerJoin(agentRuns, eq(agentRuns.agentId, agents.id))
    .where(eq(agentRuns.id, runId))
    .for("share", { of: agents });
  return agent?.status === "paused";
}

/**
 * Claims a suspended run whose approval was decided, for `owner` alone: the
 * run goes back to running under our lease and the approval is marked
 * resumed, in one transaction. Of racing resumers (a double click, the
 * sweeper, another instance) exactly one gets the approval; the rest get null.
 * A paused agent's run is not claimed (null): it stays suspended, its
 * decision kept, until the agent is resumed and the sweeper picks it up.
 */
export async function claimResume(db: Db, bus: EventBus, runId: string, owner: string): Promise<Approval | null> {
  const claimed = await withDbRetry(() =>
    db.transaction(async (tx) => {
      if (await agentOfRunPaused(tx, runId)) return null;
      const [approval] = await tx
        .select()
        .from(approvals)
        .where(and(eq(approvals.runId, runId), inArray(approvals.status, ["approved", "rejected", "expired", "withdrawn"]), isNull(approvals.resumedAt)))
        .orderBy(asc(approvals.decidedAt))
        .limit(1)
        // Wait for, rather than skip, a row locked by a decision still in flight.
        .for("update");
      if (!approval) return null;
      const [run] = await tx
        .update(agentRuns)
        .set({ state: "running", claimedBy: owner, leaseExpiresAt: lease() })
        .where(and(eq(agentRuns.id, runId), eq(agentRuns.state, "suspended")))
        .returning({ id: agentRuns.id });
      if (!run) return null;
      await tx.update(approvals).set({ resumedAt: new Date() }).where(eq(approvals.id, approval.id));
      const seq = await insertRunEvents(tx, runId, owner, [{ type: "run_resumed", payload: { approvalId: approval.id } }]);
      return { approval, seq };
    }),
  );
  if (!claimed) return null;
  await notifyRun(bus, runId, claimed.seq);
  return claimed.approval;
}

/**
 * Takes over a running run whose lease expired (its process died), for
 * `owner`, when it can be carried on from its checkpoint: it was resumed on
 * an approval and has not finished. Returns the approval it resumed on, or
 * null when the run is not ours to recover (then the sweeper fails it), or
 * `"agent_paused"` when it could be carried on but its agent is paused: it
 * is left as it is until the agent is resumed.
 */
export async function claimOrphanForRecovery(db: Db, bus: EventBus, runId: string, owner: string): Promise<Approval | "agent_paused" | null> {
  const claimed = await withDbRetry(() =>
    db.transaction(async (tx) => {
      const paused = await agentOfRunPaused(tx, runId);
      const recoverable = and(
        eq(agentRuns.id, runId),
        eq(agentRuns.state, "running"),
        isNull(agentRuns.journalClosedAt),
        lt(agentRuns.leaseExpiresAt, sql`now()`),
        sql`${agentRuns.checkpoint} is not null`,
        isNull(agentRuns.cancelRequestedAt),
      );
      if (paused) {
        const [held] = await tx.select({ id: agentRuns.id }).from(agentRuns).where(recoverable);
        return held ? ("agent_paused" as const) : null;
      }
      const [run] = await tx
        .update(agentRuns)
        .set({ claimedBy: owner, leaseExpiresAt: lease() })
        .where(recoverable)
        .returning({ id: agentRuns.id });
      if (!run) return null;
      const [approval] = await tx
        .select()
        .from(approvals)
        .where(and(eq(approvals.runId, runId), sql`${approvals.resumedAt} is not null`))
        .orderBy(sql`${approvals.resumedAt} desc`)
        .limit(1);
      if (!approval) throw new AppError("internal:checkpoint", "The run has a checkpoint but no approval it resumed on.");
      const seq = await insertRunEvents(tx, runId, owner, [{ type: "run_resumed", payload: { approvalId: approval.id, recovered: true } }]);
      return { approval, seq };
    }),
  );
  if (!claimed || claimed === "agent_paused") return claimed;
  await notifyRun(bus, runId, claimed.seq);
  return claimed.approval;
}

/**
 * Suspended runs whose approval was decided (or expired) but that nobody
 * resumed yet. A paused agent's runs are left out: they wait for its resume.
 */
export async function listResumableRuns(db: Db, limit = 50): Promise<string[]> {
  const rows = await db
    .selectDistinct({ runId: approvals.runId })
    .from(approvals)
    .innerJoin(agentRuns, eq(agentRuns.id, approvals.runId))
    .innerJoin(agents, eq(agents.id, agentRuns.agentId))
    .where(
      and(
        // A withdrawn request of a run still waiting was withdrawn by the policy: the run goes on, told so. (A stopped
        // run's requests are withdrawn with it, and it is no longer suspended.)
        ne(approvals.status, "pending"),
        isNull(approvals.resumedAt),
        eq(agentRuns.state, "suspended"),
        ne(agents.status, "paused"),
      ),
    )
    .limit(limit);
  return rows.map((r) => r.runId);
}

/**
 * Parks a run we drive between two calls of a door session: suspended, with
 * no approval and no checkpoint, until the session's next call claims it
 * (`claimParkedRun`) or the session ends. False when it was no longer ours.
 */
export async function parkRun(db: Db, runId: string, owner: string): Promise<boolean> {
  const [row] = await withDbRetry(() =>
    db
      .update(agentRuns)
      .set({ state: "suspended", checkpoint: null, claimedBy: null, leaseExpiresAt: null })
      .where(and(eq(agentRuns.id, runId), eq(agentRuns.claimedBy, owner), eq(agentRuns.state, "running")))
      .returning({ id: agentRuns.id }),
  );
  return !!row;
}

/**
 * Claims a parked run for `owner`: suspended with no approval still to be
 * decided or used, and its agent not paused. Of racing claimers one wins.
 */
export async function claimParkedRun(db: Db, runId: string, owner: string): Promise<boolean> {
  const [row] = await withDbRetry(() =>
    db
      .update(agentRuns)
      .set({ state: "running", claimedBy: owner, leaseExpiresAt: lease() })
      .where(
        and(
          eq(agentRuns.id, runId),
          eq(agentRuns.state, "suspended"),
          sql`not exists (select 1 from ${approvals} where ${approvals.runId} = ${agentRuns.id} and ${approvals.resumedAt} is null and ${approvals.status} <> 'withdrawn')`,
          sql`exists (select 1 from ${agents} where ${agents.id} = ${agentRuns.agentId} and ${agents.status} = 'active')`,
        ),
      )
      .returning({ id: agentRuns.id }),
  );
  return !!row;
}
