/**
 * Caps that ask before they stop: what one run of an agent, or one mission, may spend before a manager is asked
 * whether it goes on. Unlike the monthly budget (`budgets.ts`), reaching a cap suspends the run on a request in the
 * reviewers' inbox; an approval raises the cap by one cap again, a rejection or expiry ends the run.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { agentRuns, missionRuns, missions, type Agent, type AgentRun, type Approval } from "../db/schema";
import { AppError } from "../errors";
import { recordAudit } from "../audit";
import { callFingerprint } from "./fingerprint";
import { can } from "../access/capabilities";
import type { Role } from "../db/schema";
import { CAP_CATEGORY, CAP_TOOL, capPreview, capReason, capRequestInputSchema, type CapRequestInput } from "../billing/cap-words";

/**
 * The cap the run's next model call would go past, as the input of a request to go on, or null: no cap is set, or
 * none is reached. The run's own cap comes first; a mission's node run then answers to its mission's. Nothing is read
 * for a run with no cap of its agent and no mission.
 */
export async function capReached(db: Db, run: Pick<AgentRun, "id" | "missionRunId">, agent: Pick<Agent, "handle" | "runCapCredits">): Promise<CapRequestInput | null> {
  if (agent.runCapCredits !== null && agent.runCapCredits > 0) {
    const [row] = await db.select({ spent: agentRuns.credits, raised: agentRuns.capRaisedCredits }).from(agentRuns).where(eq(agentRuns.id, run.id));
    const cap = agent.runCapCredits + (row?.raised ?? 0);
    if (row && row.spent >= cap) {
      return { scope: "run", subject: `@${agent.handle}'s run`, spentCredits: row.spent, capCredits: cap, raisedCredits: row.raised, stepCredits: agent.runCapCredits };
    }
  }
  if (!run.missionRunId) return null;
  const [mission] = await db
    .select({
      cap: missionRuns.capCredits,
      raised: missionRuns.capRaisedCredits,
      name: missions.name,
      spent: sql<number>`case when ${missionRuns.capCredits} is null then 0 else (select coalesce(sum(${agentRuns.credits}), 0) from ${agentRuns} where ${agentRuns.missionRunId} = ${missionRuns.id}) end`.mapWith(Number),
    })
    .from(missionRuns)
    .innerJoin(missions, eq(missions.id, missionRuns.missionId))
    .where(eq(missionRuns.id, run.missionRunId));
  if (!mission || mission.cap === null || mission.cap <= 0) return null;
  const cap = mission.cap + mission.raised;
  if (mission.spent < cap) return null;
  return {
    scope: "mission",
    missionId: run.missionRunId,
    subject: `The mission “${mission.name}”`,
    spentCredits: mission.spent,
    capCredits: cap,
    raisedCredits: mission.raised,
    stepCredits: mission.cap,
  };
}

/**
 * Whether a run may spend past its cap is a budget decision: managers and owners take it (four eyes as for any
 * request), reviewers do not. It is approved or rejected as asked; there is nothing to edit.
 */
export function assertCanDecideCapRequest(decider: { role: Role }, decision: { edited: boolean }): void {
  if (!can(decider.role, "billing.manage")) {
    throw new AppError("forbidden:role", "Only managers and owners decide whether a run or a mission may spend past its cap.");
  }
  if (decision.edited) throw new AppError("bad_request:body", "A request to go past a cap cannot be edited: approve or reject it.");
}

/** The request a run files when it reaches a cap: no step and no tool call of the model, only the question. */
export function capRequest(input: CapRequestInput, runId: string, callNumber: number) {
  return {
    stepId: null,
    // One request per model call the run waits before: a resumed run that reaches the cap again asks anew.
    callId: `cap:${callNumber}`,
    tool: CAP_TOOL,
    input,
    category: CAP_CATEGORY,
    reason: capReason(input),
    preview: capPreview(input),
    // Bound to the run: two runs stopped at the same figures are two requests, never one shown for both.
    fingerprint: callFingerprint(CAP_TOOL, { ...input, runId, callNumber }),
  } as const;
}

/** The stored input of a request to go past a cap; a damaged one is an internal error, never a silent raise. */
export function capRequestOf(approval: Pick<Approval, "input">): CapRequestInput {
  const parsed = capRequestInputSchema.safeParse(approval.input);
  if (!parsed.success) throw new AppError("internal:server", "The request to go past a cap is damaged, so it was not applied.");
  return parsed.data;
}

/**
 * Raises the cap an approved request was about by one cap, in the deciding transaction, and audits it. It raises
 * from what was raised when the request was made: requests of two runs of one mission, asked at the same cap and
 * both approved, raise it once.
 */
export async function raiseCap(tx: Db, approval: Pick<Approval, "id" | "workspaceId" | "runId" | "input">, actorId: string): Promise<void> {
  const input = capRequestOf(approval);
  const raised = input.raisedCredits + input.stepCredits;
  const target =
    input.scope === "run"
      ? await tx
          .update(agentRuns)
          .set({ capRaisedCredits: sql`greatest(${agentRuns.capRaisedCredits}, ${raised})` })
          .where(and(eq(agentRuns.id, approval.runId), eq(agentRuns.workspaceId, approval.workspaceId)))
          .returning({ id: agentRuns.id, raised: agentRuns.capRaisedCredits })
      : await tx
          .update(missionRuns)
          .set({ capRaisedCredits: sql`greatest(${missionRuns.capRaisedCredits}, ${raised})` })
          .where(and(eq(missionRuns.id, input.missionId ?? ""), eq(missionRuns.workspaceId, approval.workspaceId)))
          .returning({ id: missionRuns.id, raised: missionRuns.capRaisedCredits });
  const [row] = target;
  if (!row) throw new AppError(input.scope === "run" ? "not_found:run" : "not_found:mission");
  await recordAudit(tx, {
    workspaceId: approval.workspaceId,
    actor: { kind: "user", id: actorId },
    action: "budget.cap_raised",
    target: { type: input.scope === "run" ? "run" : "mission_run", id: row.id },
    detail: {
      approvalId: approval.id,
      scope: input.scope,
      spentCredits: input.spentCredits,
      fromCapCredits: input.capCredits,
      toCapCredits: input.capCredits - input.raisedCredits + row.raised,
      stepCredits: input.stepCredits,
    },
  });
}
