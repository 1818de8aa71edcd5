import type { Database } from "../db/client";
import type { AgentRun } from "../db/schema";
import { chargeCompute, chargeUsage } from "../billing/ledger";
import type { ComputeKind } from "../billing/prices";
import { estimateTokens } from "../models/offline";
import type { ModelMessage, Usage } from "../models/types";
import type { RunJournal } from "../journal/run-journal";
import { addRunCredits, addRunUsage } from "../runs";
import { logError } from "../log";

/**
 * Writes the usage row of one model call (idempotent per run and call
 * number) and adds it to the run's totals. When the provider reported
 * nothing (a call cut short), tokens are estimated from what was sent and
 * received, and the event says so. Billing never fails the run.
 */
export async function chargeModelCall(input: {
  db: Database;
  run: AgentRun;
  journal: RunJournal;
  callNumber: number;
  modelSpec: string;
  usage: Usage;
  sawUsage: boolean;
  conversation: ModelMessage[];
  received: string;
}): Promise<void> {
  const { db, run, usage } = input;
  const estimated = !input.sawUsage || (usage.outputTokens === 0 && input.received.length > 0);
  // A prompt read wholly from the cache has no uncached input tokens: that is a report, not a missing one.
  const reportedInput = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  if (!input.sawUsage || reportedInput === 0) usage.inputTokens = estimateTokens(JSON.stringify(input.conversation));
  if (usage.outputTokens === 0 && input.received.length > 0) usage.outputTokens = estimateTokens(input.received);
  let credits = 0;
  try {
    const result = await chargeUsage(db, {
      workspaceId: run.workspaceId,
      agentId: run.agentId,
      // A mission node's calls are the mission's: charged with its id, still pointing at the run.
      source: run.missionRunId ? { kind: "mission_run", id: run.missionRunId, runId: run.id } : { kind: "run", runId: run.id },
      model: input.modelSpec,
      usage,
      idempotencyKey: `run:${run.id}:call:${input.callNumber}`,
    });
    credits = result.credits;
  } catch (error) {
    // The run's own totals below let reconciliation find and fill the gap.
    logError(`Could not charge model call ${input.callNumber} of run ${run.id}`, error);
  }
  await addRunUsage(db, run.id, { ...usage, credits, callNumber: input.callNumber }).catch((error: unknown) =>
    logError(`Could not update the totals of run ${run.id}`, error),
  );
  await input.journal
    .emit({
      type: "usage",
      payload: { model: input.modelSpec, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, cacheReadTokens: usage.cacheReadTokens, cacheWriteTokens: usage.cacheWriteTokens, credits, estimated },
    })
    .catch(() => undefined);
}

/**
 * Charges the seconds a step spent on the agent's computer (once per step, whatever its end) and adds them to the
 * run's credits; the chat and the run page see it as a usage event. Billing never fails the run.
 */
export async function chargeComputeTime(input: { db: Database; run: AgentRun; journal: RunJournal; stepId: string; kind: ComputeKind; ms: number }): Promise<void> {
  const { db, run } = input;
  try {
    const result = await chargeCompute(db, { workspaceId: run.workspaceId, agentId: run.agentId, runId: run.id, stepId: input.stepId, kind: input.kind, ms: input.ms });
    if (!result.charged) return;
    await addRunCredits(db, run.id, result.credits);
    await input.journal
      .emit({ type: "usage", payload: { model: input.kind, inputTokens: 0, outputTokens: 0, credits: result.credits, estimated: false, computeMs: Math.round(input.ms) } })
      .catch(() => undefined);
  } catch (error) {
    logError(`Could not charge the compute of step ${input.stepId} of run ${run.id}`, error);
  }
}
