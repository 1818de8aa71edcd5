import { and, eq, sql } from "drizzle-orm";
import { agentRuns, approvals, connections, steps, workspaces, type Agent, type AgentRun, type Approval, type TaintSource } from "../db/schema";
import { decryptSecret } from "../crypto";
import { AppError } from "../errors";
import type { ContentBlock } from "../models/types";
import { approvalsTopic } from "../safety/approvals";
import { authorizeCall, errorResult, type ProposedCall } from "../safety/dispatch";
import { callFingerprint, resultHash } from "../safety/fingerprint";
import { consumeGrant } from "../safety/grants";
import { classifyCall, workspacePolicy, type ApprovalCategory } from "../safety/policy";
import type { AnyTool } from "../tools/registry";
import { ToolError, type ToolContext, type ToolPreview } from "../tools/types";
import { insertRunEvents, notifyRun } from "./journal";
import { deliverAgentMessage } from "./delivery";
import type { ChatSendOutput } from "../tools/chat-send";
import { recordFeed } from "../feed/feed";
import type { RunJournal } from "./run-journal";
import type { LoopState, RuntimeDeps } from "./runner";

type ToolResult = Extract<ContentBlock, { type: "tool_result" }>;
const MAX_RESULT_CHARS = 20_000;
const SIDE_EFFECTS = ["writes_workspace", "sends_internal", "sends_externally", "spends_money", "executes_code", "writes_memory"];

export interface CallContext {
  deps: RuntimeDeps;
  run: AgentRun;
  agent: Agent;
  journal: RunJournal;
  allowed: AnyTool[];
  state: LoopState;
  signal: AbortSignal;
}

export type CallOutcome = { kind: "result"; result: ToolResult } | { kind: "suspend"; approval: NewApproval };

export interface NewApproval {
  stepId: string;
  call: ProposedCall;
  tool: AnyTool;
  category: ApprovalCategory;
  reason: string;
  preview: ToolPreview;
  fingerprint: string;
}

function toResult(callId: string, payload: unknown, isError: boolean): ToolResult {
  const content = JSON.stringify(payload ?? null);
  return {
    type: "tool_result",
    toolUseId: callId,
    content: content.length > MAX_RESULT_CHARS ? `${content.slice(0, MAX_RESULT_CHARS)}…(truncated)` : content,
    isError,
  };
}

async function createStep(ctx: CallContext, call: ProposedCall, preview: ToolPreview | null): Promise<string> {
  ctx.state.position += 1;
  const [step] = await ctx.deps.db
    .insert(steps)
    .values({
      workspaceId: ctx.run.workspaceId,
      runId: ctx.run.id,
      messageId: ctx.run.replyMessageId,
      position: ctx.state.position,
      callId: call.id,
      tool: call.name,
      input: call.input,
      status: "running",
      startedAt: new Date(),
    })
    .returning({ id: steps.id });
  await ctx.deps.db.update(agentRuns).set({ stepCount: ctx.state.position }).where(eq(agentRuns.id, ctx.run.id));
  await ctx.journal.emit({
    type: "step_started",
    payload: { stepId: step!.id, callId: call.id, tool: call.name, input: call.input, position: ctx.state.position, preview },
  });
  return step!.id;
}

async function finishStep(
  ctx: CallContext,
  step: { id: string; call: ProposedCall; started: number },
  end: { status: "succeeded" | "failed" | "refused" | "unconfirmed"; output?: unknown; error?: string | null; taint?: string[] },
): Promise<ToolResult> {
  await ctx.deps.db
    .update(steps)
    .set({ status: end.status, input: step.call.input, output: end.output ?? null, error: end.error ?? null, taint: end.taint ?? [], finishedAt: new Date() })
    .where(eq(steps.id, step.id));
  await ctx.journal.emit({
    type: "step_finished",
    payload: {
      stepId: step.id,
      callId: step.call.id,
      tool: step.call.name,
      status: end.status,
      output: end.output ?? undefined,
      error: end.error ?? null,
      taint: end.taint ?? [],
      durationMs: Date.now() - step.started,
    },
  });
  return end.error ? toResult(step.call.id, { error: end.error }, true) : toResult(step.call.id, end.output, false);
}

function previewOf(tool: AnyTool | undefined, input: unknown): ToolPreview | null {
  if (!tool) return null;
  const parsed = tool.input.safeParse(input);
  if (!parsed.success) return null;
  try {
    return tool.preview(parsed.data);
  } catch {
    return null;
  }
}

/**
 * Takes one call of the model's batch through the governed path: validate,
 * authorise (gate with bounded rewrites, then the workspace policy), and
 * either run it, refuse it, or ask for approval (the run then suspends).
 */
export async function dispatchCall(ctx: CallContext, proposed: ProposedCall): Promise<CallOutcome> {
  const tool = ctx.allowed.find((t) => t.name === proposed.name);
  const started = Date.now();
  const stepId = await createStep(ctx, proposed, previewOf(tool, proposed.input));
  const step = { id: stepId, call: proposed, started };
  if (!tool) return { kind: "result", result: await finishStep(ctx, step, { status: "refused", error: `The tool \`${proposed.name}\` is not available to @${ctx.agent.handle}.` }) };

  const authorised = await authorizeCall(proposed, ctx.deps.gate);
  if (!authorised.ok) return { kind: "result", result: await finishStep(ctx, step, { status: "refused", error: `Denied by policy: ${authorised.reason}` }) };
  const call = authorised.call;
  step.call = call;
  const parsed = tool.input.safeParse(call.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ");
    return { kind: "result", result: await finishStep(ctx, step, { status: "failed", error: `Invalid input for \`${tool.name}\`: ${issues}` }) };
  }
  const [ws] = await ctx.deps.db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, ctx.run.workspaceId));
  const verdict = classifyCall({ tool: tool.name, effects: tool.effects, taint: ctx.state.taint, overrides: workspacePolicy(ws?.settings).overrides });
  if (verdict.kind === "deny") return { kind: "result", result: await finishStep(ctx, step, { status: "refused", error: verdict.reason }) };
  if (verdict.kind === "require_approval") {
    return {
      kind: "suspend",
      approval: {
        stepId,
        call: { ...call, input: parsed.data },
        tool,
        category: verdict.category,
        reason: verdict.reason,
        preview: tool.preview(parsed.data),
        fingerprint: callFingerprint(tool.name, parsed.data),
      },
    };
  }
  return { kind: "result", result: await execute(ctx, tool, step, parsed.data) };
}

/** Applies a decision to the suspended call at the head of the batch. */
export async function resumeCall(ctx: CallContext, proposed: ProposedCall, approval: Approval): Promise<ToolResult> {
  const tool = ctx.allowed.find((t) => t.name === proposed.name);
  const stepId = approval.stepId!;
  const started = Date.now();
  if (approval.status !== "approved" || !tool) {
    const why = approval.status === "expired" ? "No reviewer decided in time, so the approval expired" : "A reviewer rejected this action";
    const error = `${why}${approval.reason ? `: ${approval.reason}` : "."} Nothing was done.`;
    await finishStep(ctx, { id: stepId, call: proposed, started }, { status: "refused", error });
    return toResult(proposed.id, { refused: true, decision: approval.status, reason: approval.reason, error }, true);
  }
  const input = (approval.editedInput as Record<string, unknown> | null) ?? proposed.input;
  const call = { ...proposed, input };
  const step = { id: stepId, call, started };
  if (callFingerprint(tool.name, input) !== approval.fingerprint) {
    return finishStep(ctx, step, { status: "refused", error: "The approved call does not match this call, so it was not run." });
  }
  try {
    await consumeGrant(ctx.deps.db, { approvalId: approval.id, fingerprint: approval.fingerprint, consumer: `${ctx.deps.instanceId}:${ctx.run.id}` });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return finishStep(ctx, step, { status: "failed", error: error.message });
  }
  const result = await execute(ctx, tool, step, input);
  if (!approval.editedInput) return result;
  // The model must know that what ran is not what it asked for.
  return { ...result, content: JSON.stringify({ note: "A reviewer changed the input before approving.", inputUsed: input, result: JSON.parse(result.content) as unknown }) };
}

async function credentialFor(deps: RuntimeDeps, workspaceId: string, provider: string) {
  const [row] = await deps.db
    .select({ secret: connections.secret, config: connections.config })
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), eq(connections.provider, provider)))
    .limit(1);
  return row ? { secret: decryptSecret(row.secret, deps.encryptionKey), config: row.config } : null;
}

function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : Object.assign(new Error("aborted"), { name: "AbortError" }));
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * Runs an authorised call. "Dispatch started" is journaled before the
 * effect: if that write fails, this throws and the effect never happens.
 * A timeout leaves the effect unconfirmed, and the step says so.
 */
async function execute(ctx: CallContext, tool: AnyTool, step: { id: string; call: ProposedCall; started: number }, input: Record<string, unknown>): Promise<ToolResult> {
  const open = ctx.deps.breakers.check(tool.name);
  if (open) return finishStep(ctx, step, { status: "refused", error: open });
  await ctx.journal.emit({ type: "dispatch_started", payload: { stepId: step.id, callId: step.call.id, tool: tool.name, fingerprint: callFingerprint(tool.name, input) } });
  const timeoutMs = tool.timeoutMs ?? 30_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const toolContext: ToolContext = {
    db: ctx.deps.db,
    workspaceId: ctx.run.workspaceId,
    agentId: ctx.agent.id,
    agentHandle: ctx.agent.handle,
    runId: ctx.run.id,
    stepId: step.id,
    hop: ctx.run.hop,
    userId: ctx.run.userId,
    sessionId: ctx.run.sessionId,
    trigger: ctx.run.trigger,
    credential: (provider) => credentialFor(ctx.deps, ctx.run.workspaceId, provider),
    signal: AbortSignal.any([ctx.signal, timeout]),
  };
  let end: Parameters<typeof finishStep>[2];
  try {
    const output = await raceSignal(tool.execute(toolContext, input), toolContext.signal);
    const source = tool.taint(input, output);
    if (source && !ctx.state.taint.some((t) => t.source === source)) {
      const entry: TaintSource = { source, stepId: step.id };
      ctx.state.taint.push(entry);
      await ctx.deps.db.update(agentRuns).set({ taint: ctx.state.taint }).where(eq(agentRuns.id, ctx.run.id));
      await ctx.journal.emit({ type: "run_tainted", payload: { source, stepId: step.id } });
    }
    end = { status: "succeeded", output, taint: source ? [source] : [] };
  } catch (caught) {
    if (ctx.signal.aborted) throw caught;
    if (timeout.aborted) {
      const effectful = tool.effects.some((e) => SIDE_EFFECTS.includes(e));
      end = effectful
        ? { status: "unconfirmed", error: `\`${tool.name}\` did not answer within ${timeoutMs / 1000} s; whether it took effect is unknown.` }
        : { status: "failed", error: `\`${tool.name}\` did not finish within ${timeoutMs / 1000} s.` };
    } else if (caught instanceof ToolError) {
      end = { status: "failed", error: caught.message };
    } else {
      console.error(`Tool ${tool.name} crashed`, caught);
      end = { status: "failed", error: `\`${tool.name}\` failed: ${(caught as Error)?.message ?? String(caught)}` };
    }
  }
  ctx.deps.breakers.record(tool.name, end.status === "succeeded");
  if (tool.name === "chat.send" && end.status === "succeeded") {
    await deliverAgentMessage(ctx.deps, { run: ctx.run, handle: ctx.agent.handle, stepId: step.id }, end.output as ChatSendOutput, String(input.message ?? ""));
  }
  const result = await finishStep(ctx, step, end);
  await ctx.journal.emit({
    type: "dispatch_finished",
    payload: { stepId: step.id, callId: step.call.id, resultHash: resultHash(result), isError: !!result.isError, unconfirmed: end.status === "unconfirmed" },
  });
  return result;
}

/**
 * Suspends the run on a gated call, in one transaction: the approval, the
 * step waiting for it, `approval_required` then `run_suspended` in the
 * journal, and the checkpoint of the whole loop state. Nothing of the call
 * has run. Returns the approval id.
 */
export async function suspendRun(ctx: CallContext, pending: NewApproval): Promise<string> {
  const { deps, run } = ctx;
  await ctx.journal.flush();
  const [ws] = await deps.db.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, run.workspaceId));
  const ttl = workspacePolicy(ws?.settings).approvalTtlSeconds;
  const { approvalId, seq } = await deps.db.transaction(async (tx) => {
    const [approval] = await tx
      .insert(approvals)
      .values({
        workspaceId: run.workspaceId,
        runId: run.id,
        stepId: pending.stepId,
        agentId: run.agentId,
        requestedByUserId: run.userId,
        category: pending.category,
        tool: pending.tool.name,
        callId: pending.call.id,
        input: pending.call.input,
        preview: pending.preview,
        fingerprint: pending.fingerprint,
        taintSources: ctx.state.taint,
        expiresAt: sql`now() + make_interval(secs => ${ttl})`,
      })
      .returning({ id: approvals.id, expiresAt: approvals.expiresAt });
    await tx.update(steps).set({ status: "awaiting_approval", fingerprint: pending.fingerprint }).where(eq(steps.id, pending.stepId));
    const seq = await insertRunEvents(tx, run.id, deps.instanceId, [
      {
        type: "approval_required",
        payload: {
          approvalId: approval!.id,
          stepId: pending.stepId,
          callId: pending.call.id,
          tool: pending.tool.name,
          category: pending.category,
          reason: pending.reason,
          preview: pending.preview,
          taintSources: ctx.state.taint,
          expiresAt: approval!.expiresAt.toISOString(),
        },
      },
      { type: "run_suspended", payload: { approvalId: approval!.id } },
    ]);
    const [suspended] = await tx
      .update(agentRuns)
      .set({ state: "suspended", checkpoint: ctx.state, claimedBy: null, leaseExpiresAt: null })
      .where(and(eq(agentRuns.id, run.id), eq(agentRuns.claimedBy, deps.instanceId), eq(agentRuns.state, "running")))
      .returning({ id: agentRuns.id });
    if (!suspended) throw new AppError("conflict:run", "The run was taken over while suspending.");
    return { approvalId: approval!.id, seq };
  });
  await notifyRun(deps.bus, run.id, seq);
  await deps.bus.publish(approvalsTopic(run.workspaceId), { approvalId, status: "pending" });
  await recordFeed(deps.db, deps.bus, [
    {
      workspaceId: run.workspaceId,
      kind: "approval_requested",
      agentId: run.agentId,
      runId: run.id,
      stepId: pending.stepId,
      approvalId,
      payload: {
        agent: ctx.agent.handle,
        tool: pending.tool.name,
        category: pending.category,
        title: pending.preview.title,
        taint: ctx.state.taint.map((t) => t.source),
        sessionId: run.sessionId,
        trigger: run.trigger,
      },
    },
  ]);
  return approvalId;
}

export { errorResult };
