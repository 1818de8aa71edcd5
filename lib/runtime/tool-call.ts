import type { Approval, TaintSource } from "../db/schema";
import { isAppError } from "../errors";
import { approvalsTopic } from "../safety/approvals";
import { authorizeCall, breakerKeyFor, errorResult, type BreakerOutcome, type ProposedCall } from "../safety/dispatch";
import { callFingerprint, resultHash } from "../safety/fingerprint";
import { consumeGrant } from "../safety/grants";
import { classifyCall } from "../safety/policy";
import { workspaceCredential, workspacePolicyOf } from "./workspace-reads";
import { cleanDeep, truncate } from "../text";
import { effectsOfCall, type AnyTool } from "../tools/registry";
import { ToolError, type FollowUp, type ToolContext, type ToolPreview } from "../tools/types";
import { deliverAgentMessage } from "../messaging/delivery";
import { recordFeed } from "../feed/feed";
import { recordStepFinish, recordStepStart, recordTaint, suspendWithCheckpoint, type NewApproval, type StepEnd } from "../runs";
import type { CallContext, RuntimeDeps, ToolResultBlock } from "./types";
import { workspaceRedactor } from "../connections/connections";
import { logError } from "../log";
import { chargeComputeTime } from "./run-usage";
import { issueWords } from "../issue-words";
import { trackCredentials } from "../secret-redactor";
import { taintSourcesOf } from "../safety/taint";
import { capQuestionWithoutFigures, isCapRequest } from "../billing/cap-words";
import { capRequestOf } from "../safety/cap-requests";
import { telemetryOf } from "../telemetry/telemetry";

type ToolResult = ToolResultBlock;
const MAX_RESULT_CHARS = 20_000;
const SIDE_EFFECTS = ["writes_workspace", "sends_internal", "sends_externally", "spends_money", "executes_code", "writes_memory", "writes_computer"];

export type CallOutcome = { kind: "result"; result: ToolResult } | { kind: "suspend"; approval: NewApproval };

function toResult(callId: string, payload: unknown, isError: boolean): ToolResult {
  const content = JSON.stringify(payload ?? null);
  return {
    type: "tool_result",
    toolUseId: callId,
    content: content.length > MAX_RESULT_CHARS ? `${truncate(content, MAX_RESULT_CHARS)}…(truncated)` : content,
    isError,
  };
}

async function createStep(ctx: CallContext, call: ProposedCall, preview: ToolPreview | null): Promise<string> {
  ctx.state.position += 1;
  const stepId = await recordStepStart(ctx.deps.db, ctx.run, { position: ctx.state.position, callId: call.id, tool: call.name, input: call.input });
  await ctx.journal.emit({
    type: "step_started",
    payload: { stepId, callId: call.id, tool: call.name, input: call.input, position: ctx.state.position, preview },
  });
  return stepId;
}

export async function finishStep(ctx: CallContext, step: { id: string; call: ProposedCall; started: number }, end: StepEnd): Promise<ToolResult> {
  await recordStepFinish(ctx.deps.db, step.id, step.call.input, end);
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
  telemetryOf(ctx.deps.db)?.toolCallEnded(ctx.run.id, step.id);
  return stepResult(step.call.id, end);
}

/** What the model reads for a finished step. */
export function stepResult(callId: string, end: StepEnd): ToolResult {
  return end.error ? toResult(callId, { error: end.error }, true) : toResult(callId, end.output, false);
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

/** The card of a call that waits for a person: as things stand now (a file write's diff) where the tool can tell. */
async function previewNowOf(ctx: CallContext, tool: AnyTool, input: Record<string, unknown>): Promise<ToolPreview> {
  if (!tool.previewNow) return tool.preview(input);
  try {
    return await tool.previewNow({ db: ctx.deps.db, workspaceId: ctx.run.workspaceId, agentId: ctx.agent.id }, input);
  } catch {
    return tool.preview(input);
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
  const parsed = tool.input.safeParse(call.input, { error: issueWords });
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => i.message).join(" ");
    return { kind: "result", result: await finishStep(ctx, step, { status: "failed", error: `Invalid input for \`${tool.name}\`: ${issues}` }) };
  }
  const policy = await workspacePolicyOf(ctx.deps.db, ctx.run.workspaceId);
  const verdict = classifyCall({ tool: tool.name, effects: effectsOfCall(tool, parsed.data), taint: ctx.state.taint, overrides: policy.overrides });
  if (verdict.kind === "deny") return { kind: "result", result: await finishStep(ctx, step, { status: "refused", error: verdict.reason }) };
  if (verdict.kind === "require_approval") {
    // The saved call holds the input as the schema parsed it (`general` → `#general`), the same the approval shows
    // and its grant is bound to: what is resumed is exactly what was approved.
    const saved = { ...call, input: parsed.data };
    if (ctx.state.pending[0]?.id === call.id) ctx.state.pending[0] = saved;
    ctx.state.batch = ctx.state.batch.map((c) => (c.id === call.id ? saved : c));
    return {
      kind: "suspend",
      approval: {
        stepId,
        callId: call.id,
        tool: tool.name,
        input: parsed.data,
        category: verdict.category,
        reason: verdict.reason,
        preview: await previewNowOf(ctx, tool, parsed.data),
        fingerprint: callFingerprint(tool.name, parsed.data),
      },
    };
  }
  return { kind: "result", result: await execute(ctx, tool, step, parsed.data) };
}

/** Live output of one step is journaled at most this often, gathered in between. */
const LIVE_OUTPUT_EVERY_MS = 100;
/** Live output journaled per step; past it the step's result still holds what the command kept. */
const LIVE_OUTPUT_MAX_CHARS = 256 * 1024;

/**
 * A step's output as it comes (a command's stdout and stderr), journaled in
 * pieces gathered for up to `LIVE_OUTPUT_EVERY_MS`, so a viewer watches it
 * live and a replay shows the same. `close` writes what is left; a failed
 * write never fails the step (the result carries the output anyway).
 */
function liveOutput(ctx: CallContext, stepId: string) {
  let pending: { stream: "stdout" | "stderr"; text: string }[] = [];
  let timer: NodeJS.Timeout | null = null;
  let written = 0;
  let stopped = false;
  let writing: Promise<unknown> = Promise.resolve();
  const flush = () => {
    timer = null;
    const batch = pending;
    pending = [];
    for (const piece of batch) {
      writing = writing.then(() => ctx.journal.emit({ type: "tool_output", payload: { stepId, stream: piece.stream, text: piece.text } })).catch(() => undefined);
    }
  };
  return {
    write(stream: "stdout" | "stderr", text: string) {
      if (stopped || !text) return;
      if (written + text.length > LIVE_OUTPUT_MAX_CHARS) {
        stopped = true;
        text = `${text.slice(0, Math.max(0, LIVE_OUTPUT_MAX_CHARS - written))}\n… (live output stops here; the result keeps the start and the end)\n`;
      }
      written += text.length;
      const last = pending[pending.length - 1];
      if (last?.stream === stream) last.text += text;
      else pending.push({ stream, text });
      timer ??= setTimeout(flush, LIVE_OUTPUT_EVERY_MS);
    },
    async close() {
      if (timer) clearTimeout(timer);
      flush();
      await writing;
    },
  };
}

/** Why a call that was asked for was not run, as the step and the model are told: the decision, its reason, and that nothing was done. */
export function refusalOf(status: Approval["status"], reason: string | null): string {
  // A withdrawal's reason is a sentence of the policy's; a reviewer's reason is their own words.
  if (status === "withdrawn") return `The request was withdrawn before anyone approved it.${reason ? ` ${reason}` : ""} Nothing was done.`;
  const why = status === "expired" ? "No reviewer decided in time, so the approval expired" : "A reviewer rejected this action";
  return `${why}${reason ? `: ${reason}` : "."} Nothing was done.`;
}

/** Applies a decision to the suspended call at the head of the batch. */
export async function resumeCall(ctx: CallContext, proposed: ProposedCall, approval: Approval): Promise<ToolResult> {
  const tool = ctx.allowed.find((t) => t.name === proposed.name);
  const stepId = approval.stepId!;
  const started = Date.now();
  if (approval.status !== "approved" || !tool) {
    const error = refusalOf(approval.status, approval.reason);
    await finishStep(ctx, { id: stepId, call: proposed, started }, { status: "refused", error });
    return toResult(proposed.id, { refused: true, decision: approval.status, reason: approval.reason, error }, true);
  }
  // A call saved before its input was kept parsed is parsed here, as it was for its approval.
  const asked = tool.input.safeParse(proposed.input);
  const input = (approval.editedInput as Record<string, unknown> | null) ?? (asked.success ? asked.data : proposed.input);
  const call = { ...proposed, input };
  const step = { id: stepId, call, started };
  if (callFingerprint(tool.name, input) !== approval.fingerprint) {
    return finishStep(ctx, step, { status: "refused", error: "The approved call does not match this call, so it was not run." });
  }
  // The policy again, right before the effect: a tool or category denied since the approval is not run, grant or not.
  const policy = await workspacePolicyOf(ctx.deps.db, ctx.run.workspaceId);
  const verdict = classifyCall({ tool: tool.name, effects: effectsOfCall(tool, input), taint: ctx.state.taint, overrides: policy.overrides });
  if (verdict.kind === "deny") return finishStep(ctx, step, { status: "refused", error: `${verdict.reason} It was approved before that, but nothing was done.` });
  try {
    await consumeGrant(ctx.deps.db, { approvalId: approval.id, fingerprint: approval.fingerprint, consumer: `${ctx.deps.instanceId}:${ctx.run.id}` });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return finishStep(ctx, step, { status: "failed", error: error.message });
  }
  const result = await execute(ctx, tool, step, input);
  if (!approval.editedInput) return result;
  return { ...result, content: withEditNote(result.content, input) };
}

/**
 * A result as the model reads it after a reviewer edited the call: the model must know that what ran is not what it
 * asked for. A result cut at the size limit is no longer JSON: it goes along as the text it is.
 */
export function withEditNote(content: string, inputUsed: Record<string, unknown>): string {
  let result: unknown = content;
  try {
    result = JSON.parse(content);
  } catch {
    // Cut short (or not JSON to begin with): kept as text.
  }
  return JSON.stringify({ note: "A reviewer changed the input before approving.", inputUsed, result });
}

function credentialFor(deps: RuntimeDeps, workspaceId: string, provider: string, name?: string) {
  return workspaceCredential(deps.db, deps.encryptionKey, workspaceId, provider, name);
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
  const breaker = breakerKeyFor(ctx.run.workspaceId, tool, input);
  const open = ctx.deps.breakers.check(breaker);
  if (open) return finishStep(ctx, step, { status: "refused", error: open });
  await ctx.journal.emit({ type: "dispatch_started", payload: { stepId: step.id, callId: step.call.id, tool: tool.name, fingerprint: callFingerprint(tool.name, input) } });
  const timeoutMs = tool.timeoutMs ?? 30_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const credentials = trackCredentials((provider: string, name?: string) => credentialFor(ctx.deps, ctx.run.workspaceId, provider, name));
  const live = liveOutput(ctx, step.id);
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
    taint: ctx.state.taint.map((t) => t.source),
    credential: credentials.credential,
    fetchAllow: ctx.deps.fetchAllow,
    computers: ctx.deps.computers,
    progress: live.write,
    signal: AbortSignal.any([ctx.signal, timeout]),
  };
  let end: StepEnd;
  let followUps: FollowUp[] = [];
  let health: BreakerOutcome = "failure";
  if (tool.compute) {
    // The computer costs money like a model call: a spent budget stops it before it starts.
    const spent = await ctx.deps.checkBudget?.({ workspaceId: ctx.run.workspaceId, agentId: ctx.agent.id, runId: ctx.run.id }).then(
      () => null,
      (error: unknown) => (isAppError(error) && error.code === "unprocessable:budget_exceeded" ? error.message : Promise.reject(error)),
    );
    if (spent) {
      await live.close();
      return finishStep(ctx, step, { status: "refused", error: spent });
    }
  }
  const computeStarted = performance.now();
  try {
    const output = cleanDeep(await raceSignal(tool.execute(toolContext, input), toolContext.signal));
    followUps = tool.after?.(toolContext, input, output) ?? [];
    const sources = taintSourcesOf(tool.taint(input, output));
    const added: TaintSource[] = sources.filter((source) => !ctx.state.taint.some((t) => t.source === source)).map((source) => ({ source, stepId: step.id }));
    if (added.length > 0) {
      ctx.state.taint.push(...added);
      await recordTaint(ctx.deps.db, ctx.run.id, ctx.state.taint);
      for (const t of added) await ctx.journal.emit({ type: "run_tainted", payload: { source: t.source, stepId: t.stepId } });
    }
    end = { status: "succeeded", output, taint: sources };
    health = "success";
  } catch (caught) {
    if (ctx.signal.aborted) {
      if (tool.compute) await chargeComputeTime({ db: ctx.deps.db, run: ctx.run, journal: ctx.journal, stepId: step.id, kind: tool.compute, ms: performance.now() - computeStarted });
      throw caught;
    }
    if (timeout.aborted) {
      const effectful = tool.effects.some((e) => SIDE_EFFECTS.includes(e));
      end = effectful
        ? { status: "unconfirmed", error: `\`${tool.name}\` did not answer within ${timeoutMs / 1000} s; whether it took effect is unknown.` }
        : { status: "failed", error: `\`${tool.name}\` did not finish within ${timeoutMs / 1000} s.` };
    } else if (caught instanceof ToolError) {
      end = { status: "failed", error: caught.message };
      if (caught.refused) health = "neutral";
    } else {
      logError(`Tool ${tool.name} crashed`, caught, { secrets: credentials.used() });
      end = { status: "failed", error: `\`${tool.name}\` failed: ${(caught as Error)?.message ?? String(caught)}` };
    }
  }
  await live.close();
  if (tool.compute) await chargeComputeTime({ db: ctx.deps.db, run: ctx.run, journal: ctx.journal, stepId: step.id, kind: tool.compute, ms: performance.now() - computeStarted });
  // Nothing a tool returns or throws is stored, journaled or shown to the model with a credential in it.
  end = (await workspaceRedactor(ctx.deps.db, ctx.run.workspaceId, ctx.deps.encryptionKey, credentials.used())).value(end);
  ctx.deps.breakers.record(breaker, health);
  if (end.status === "succeeded") await performFollowUps(ctx, step.id, followUps);
  const result = await finishStep(ctx, step, end);
  await ctx.journal.emit({
    type: "dispatch_finished",
    payload: { stepId: step.id, callId: step.call.id, resultHash: resultHash(result), isError: !!result.isError, unconfirmed: end.status === "unconfirmed" },
  });
  return result;
}

/**
 * The work a tool declared for after its call, done in the calling run's
 * name. Runs it creates are handed to the runtime to drive.
 */
async function performFollowUps(ctx: CallContext, stepId: string, work: FollowUp[]): Promise<void> {
  for (const item of work) {
    switch (item.kind) {
      case "deliver": {
        const runIds = await deliverAgentMessage(ctx.deps, { run: ctx.run, handle: ctx.agent.handle, stepId, taint: ctx.state.taint }, item);
        ctx.startRuns(runIds);
        break;
      }
    }
  }
}

/**
 * Suspends the run on a gated call (see `suspendWithCheckpoint`): nothing
 * of the call has run. Returns the approval id.
 */
export async function suspendRun(ctx: CallContext, pending: NewApproval): Promise<string> {
  const { deps, run } = ctx;
  await ctx.journal.flush();
  const { approvalId } = await suspendWithCheckpoint(deps.db, deps.bus, { run, owner: deps.instanceId, state: ctx.state, approval: pending, tools: deps.tools });
  await deps.bus.publish(approvalsTopic(run.workspaceId), { approvalId, status: "pending" });
  // Not awaited: the run lets go as soon as it is suspended (a decision may resume it at once); the feed writer
  // commits the item with the others.
  void recordFeed(deps.db, deps.bus, [
    {
      workspaceId: run.workspaceId,
      kind: "approval_requested",
      agentId: run.agentId,
      runId: run.id,
      stepId: pending.stepId,
      approvalId,
      payload: {
        agent: ctx.agent.handle,
        tool: pending.tool,
        category: pending.category,
        // The feed is every member's: a request to go past a cap is named there without its figures.
        title: isCapRequest(pending) ? capQuestionWithoutFigures(capRequestOf(pending)) : pending.preview.title,
        taint: ctx.state.taint.map((t) => t.source),
        sessionId: run.sessionId,
        trigger: run.trigger,
        via: run.via,
      },
    },
  ]);
  return approvalId;
}

export { errorResult };
