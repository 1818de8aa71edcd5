import type { Database } from "../db/client";
import type { Agent, AgentRun, Approval } from "../db/schema";
import { AppError, isAppError } from "../errors";
import { withCleanOutput } from "../models/clean";
import type { ResolvedModel } from "../models/registry";
import { isModelError, modelErrorCode, type StopReason, type Usage } from "../models/types";
import { correlateResults, errorResult, validCallIds, type ProposedCall } from "../safety/dispatch";
import { truncate } from "../text";
import { memoryScopeOf } from "../access/access";
import { rememberMemory } from "../tools/memory";
import { toolSpec, type AnyTool } from "../tools/registry";
import { parseCheckpoint } from "./checkpoint";
import { buildSystemPrompt, loadHistory } from "./context";
import { RunLostError } from "../journal/run-journal-store";
import { RunJournal } from "../journal/run-journal";
import { journalWriterFor } from "../journal/run-journal-writer";
import { postReply } from "../messaging/delivery";
import { recordFeed, recordRunFinished } from "../feed/feed";
import { getRunWithAgent, journalText, messageText, runCounters } from "../runs/run-reads";
import { chargeModelCall } from "./run-usage";
import { cancelReasonOf, finishRun, grantConsumed, recordStepFinish, renewLease, stepsOfRun } from "../runs";
import { dispatchCall, finishStep, resumeCall, stepResult, suspendRun } from "./tool-call";
import type { CallContext, LoopState, RuntimeDeps, StartRuns } from "./types";
import { logError } from "../log";
import { capReached, capRequest, capRequestOf } from "../safety/cap-requests";
import { capStopSentence, isCapRequest } from "../billing/cap-words";
import { telemetryOf } from "../telemetry/telemetry";

export type { LoopState, RuntimeDeps } from "./types";

export interface DriveOptions {
  /** Aborts the run: "cancel" ends it cancelled, "lost" stops writing (a crash, a takeover). */
  signal?: AbortSignal;
  /** The decided approval the run was just claimed on (`claimResume`). */
  resume?: Approval;
  /** The run was taken over from a process that died after it resumed (`claimOrphanForRecovery`). */
  recover?: boolean;
  /** Drives the runs that this run's tools started (agents it wrote to). */
  startRuns: StartRuns;
  /** Told as soon as the run has ended well, before the work that follows its end (memory, feed), with its mission run. */
  onEnded?: (missionRunId: string | null) => void;
}

export const controlTopic = (runId: string) => `run-control:${runId}`;

function abortReason(signal: AbortSignal): "cancel" | "lost" | null {
  return signal.aborted ? (signal.reason === "lost" ? "lost" : "cancel") : null;
}

const isAbort = (error: unknown) => (error as { name?: string })?.name === "AbortError" || (error as { code?: unknown })?.code === "aborted";

/**
 * Drives one run until the model ends its turn, the run suspends for an
 * approval, fails, or is cancelled. With `resume`, it first applies the
 * decision on the call the run was suspended on, then carries on. Every
 * event is journaled before anyone sees it; while we drive, the run's claim
 * is ours, and if it is taken away (cancel, sweeper) we stop.
 */
export async function driveRun(deps: RuntimeDeps, runId: string, options: DriveOptions): Promise<"suspended" | undefined> {
  const { db, bus } = deps;
  const { signal: external, resume } = options;
  const { run, agent, userText, budgets } = await getRunWithAgent(db, runId);
  if (!run || run.state !== "running" || run.claimedBy !== deps.instanceId) return;
  const journal = new RunJournal(journalWriterFor(db, bus), runId, deps.instanceId, deps.coalesceMs);
  const controller = new AbortController();
  const stopOnExternal = () => controller.abort(external?.reason ?? "cancel");
  external?.addEventListener("abort", stopOnExternal);
  // A stop asked for before this driver listened (while it read the run, or before a restart) stops it as well.
  if (external?.aborted) stopOnExternal();
  else if (run.cancelRequestedAt) controller.abort("cancel");
  const unsubscribe = bus.subscribe(controlTopic(runId), (m) => {
    if (m.action === "cancel") controller.abort("cancel");
  });
  const heartbeat = setInterval(() => {
    void renewLease(db, runId, deps.instanceId).then((state) => {
      if (state !== "ok") controller.abort(state);
    });
  }, deps.heartbeatMs);

  let state: LoopState | undefined;
  // Set when the budget was checked with the run's first reads, so its first model call need not check it again.
  let budgetChecked = false;
  try {
    if (!agent) throw new AppError("not_found:agent", "The agent of this run no longer exists.");
    let model: ResolvedModel;
    try {
      model = withCleanOutput(deps.models(agent.model));
    } catch (error) {
      throw isAppError(error) ? error : new AppError("unprocessable:model", String(error));
    }
    const allowed = agent.tools.map((name) => deps.tools.get(name)).filter((t): t is AnyTool => !!t);
    if (resume) {
      state = parseCheckpoint(run.checkpoint);
    } else {
      // The budget is checked while the run's context is read: both come before its first model call, and neither
      // waits for the other. Its limits came with the run: with none set (the usual case), nothing more is read. A
      // refusal is thrown once the run's start is journaled, as when the call checks it.
      const [fresh, budget] = await Promise.all([
        freshState(db, run, agent, userText),
        deps.checkBudget?.({ workspaceId: run.workspaceId, agentId: run.agentId, runId, limits: budgets }).then(
          () => null,
          (error: unknown) => ({ error }),
        ),
      ]);
      state = fresh;
      // Not awaited: the feed writer commits it with the other runs' items; the run's own journal need not wait for it.
      void recordFeed(db, bus, [
        {
          workspaceId: run.workspaceId,
          kind: "run_started",
          agentId: agent.id,
          runId,
          threadId: run.threadId,
          roomId: run.roomId,
          payload: { agent: agent.handle, trigger: run.trigger, sessionId: run.sessionId, hop: run.hop },
        },
      ]);
      await journal.emit({
        type: "run_started",
        payload: { runId, agentId: agent.id, agentHandle: agent.handle, model: agent.model, offline: model.offline, replyMessageId: run.replyMessageId ?? "" },
      });
      // A run handed content by other agents, or whose chat read untrusted content in an earlier turn, starts tainted:
      // its timeline says so before anything else happens. Only a fresh run gets here, so a resumed one does not journal
      // these twice.
      for (const t of state.taint) await journal.emit({ type: "run_tainted", payload: { source: t.source, stepId: t.stepId } });
      if (budget) throw budget.error;
      budgetChecked = budget === null;
    }
    const ctx: CallContext = { deps, run, agent, journal, allowed, state, signal: controller.signal, startRuns: options.startRuns };

    if (resume && isCapRequest(resume)) {
      // The run waited at a cap before a model call: no call of the model's is pending. Approved, the cap was raised
      // and the loop goes on; otherwise the run ends here with what it wrote so far.
      if (options.recover) await settleAfterCrash(ctx, resume);
      if (resume.status !== "approved") throw new AppError("unprocessable:budget_exceeded", capStopSentence(capRequestOf(resume), resume.status, resume.reason));
    } else if (resume && options.recover) {
      await settleAfterCrash(ctx, resume);
    } else if (resume) {
      const head = state.pending[0];
      if (!head || head.id !== resume.callId) throw new AppError("internal:checkpoint", "The run's saved state does not match the decided approval.");
      state.results.push(await resumeCall(ctx, head, resume));
      state.pending.shift();
    }

    for (;;) {
      while (state.pending.length > 0) {
        const outcome = await dispatchCall(ctx, state.pending[0]!);
        if (outcome.kind === "suspend") {
          await suspendRun(ctx, outcome.approval);
          return "suspended";
        }
        state.results.push(outcome.result);
        state.pending.shift();
      }
      if (state.batch.length > 0) {
        state.conversation.push({ role: "user", content: correlateResults(state.batch, state.results) });
        state.batch = [];
        state.results = [];
      }
      if (state.modelCalls >= deps.maxSteps) {
        throw new AppError("unprocessable:step_limit", `The run stopped after ${deps.maxSteps} model calls, the limit for one run.`);
      }
      // The monthly budget is a hard stop; a cap of the run or its mission asks a manager first, the run waiting.
      if (!budgetChecked) await deps.checkBudget?.({ workspaceId: run.workspaceId, agentId: run.agentId, runId });
      budgetChecked = false;
      const cap = await capReached(db, run, agent);
      if (cap) {
        await suspendRun(ctx, capRequest(cap, runId, state.modelCalls));
        return "suspended";
      }
      const turn = await callModel(deps, ctx, model, allowed);
      if (turn.calls.length === 0 || turn.stop === "end_turn" || turn.stop === "stop_sequence" || turn.stop === "refusal") break;
      state.conversation.push({
        role: "assistant",
        content: [...(turn.text.trim() ? [{ type: "text" as const, text: turn.text }] : []), ...turn.calls.map((c) => ({ type: "tool_use" as const, ...c }))],
      });
      if (!validCallIds(turn.calls)) {
        // Results could not be told apart: no call of the batch runs.
        state.conversation.push({ role: "user", content: turn.calls.map((c) => errorResult(c.id, "The tool batch needs unique, non-empty call ids; nothing was run.")) });
        continue;
      }
      state.batch = turn.calls;
      state.pending = [...turn.calls];
      state.results = [];
    }

    await journal.flush();
    const completed = { type: "run_completed" as const, payload: { replyMessageId: run.replyMessageId ?? "" } };
    const committed = () => options.onEnded?.(run.missionRunId);
    if (!(await finishRun(db, bus, { runId, owner: deps.instanceId, state: "succeeded", replyText: state.fullText, event: completed, committed }))) return;
    if (state.fullText.trim()) {
      await rememberMemory(db, { workspaceId: run.workspaceId, agentId: run.agentId, runId, content: truncate(state.fullText, 4000), kind: "reply", ...memoryScopeOf(run), taint: state.taint.map((t) => t.source) }).catch(
        (error: unknown) => logError(`Could not remember the reply of run ${runId}`, error),
      );
    }
    await recordRunFinished(deps, run, agent.handle, "succeeded");
    if (run.trigger === "agent_message" || run.trigger === "room_post") await postReply(deps, run, state.fullText);
  } catch (error) {
    const reason = abortReason(controller.signal);
    if (error instanceof RunLostError || reason === "lost") {
      journal.discard();
      return;
    }
    await journal.flush().catch(() => journal.discard());
    const replyText = state?.fullText ?? (await currentReply(db, run.replyMessageId));
    if (reason === "cancel" && isAbort(error)) {
      const cancelled = { type: "run_cancelled" as const, payload: { reason: await cancelReasonOf(db, runId) } };
      if (await finishRun(db, bus, { runId, owner: deps.instanceId, state: "cancelled", replyText, event: cancelled })) {
        await recordRunFinished(deps, run, agent?.handle, "cancelled");
      }
      return;
    }
    const { code, message } = describeFailure(error);
    const failed = { type: "run_failed" as const, payload: { code, message } };
    if (await finishRun(db, bus, { runId, owner: deps.instanceId, state: "failed", replyText, code, message, event: failed })) {
      await recordRunFinished(deps, run, agent?.handle, "failed", { code, message });
    }
  } finally {
    clearInterval(heartbeat);
    unsubscribe();
    external?.removeEventListener("abort", stopOnExternal);
  }
}

async function currentReply(db: Database, replyMessageId: string | null): Promise<string> {
  return (await messageText(db, replyMessageId)) ?? "";
}

/** The loop state of a run's first turn; `userText` is the message that started it, read with the run. */
async function freshState(db: Database, run: AgentRun, agent: Agent, userText: string | null): Promise<LoopState> {
  const question = userText ?? run.inputText ?? "";
  // Read at once: neither needs the other, and this is the path to the run's first text.
  const [conversation, system] = await Promise.all([loadHistory(db, run), buildSystemPrompt(db, agent, question, run)]);
  if (conversation.length === 0 || conversation[conversation.length - 1]!.role !== "user") {
    conversation.push({ role: "user", content: [{ type: "text", text: question || "(no text)" }] });
  }
  return {
    version: 2,
    system,
    conversation,
    fullText: "",
    position: run.stepCount,
    modelCalls: run.modelCalls,
    taint: [...run.taint],
    batch: [],
    pending: [],
    results: [],
  };
}

/**
 * One model call (the step limit and the budgets were checked before it): streams text into the journal, collects
 * tool calls, and charges the call whatever happens.
 */
async function callModel(deps: RuntimeDeps, ctx: CallContext, model: ResolvedModel, allowed: AnyTool[]) {
  const { state, journal } = ctx;
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let sawUsage = false;
  let text = "";
  const calls: ProposedCall[] = [];
  let stop: StopReason = "end_turn";
  const callNumber = state.modelCalls;
  const startedAt = new Date();
  const telemetry = telemetryOf(deps.db);
  // What the call was sent, kept before the conversation grows: the exporter reads it after this returns.
  const sent = telemetry ? state.conversation.slice() : [];
  let failure: unknown = null;
  try {
    const stream = model.provider.stream({
      model: model.model,
      system: state.system,
      messages: state.conversation,
      tools: allowed.map(toolSpec),
      maxTokens: deps.maxTokens,
      signal: ctx.signal,
    });
    for await (const event of stream) {
      if (event.type === "text") {
        if (!text && state.fullText) {
          // A new paragraph after tool calls: journaled like any delta, so replay equals the stored reply.
          journal.delta("text", "\n\n");
          state.fullText += "\n\n";
        }
        text += event.delta;
        state.fullText += event.delta;
        journal.delta("text", event.delta);
      } else if (event.type === "thinking") {
        journal.delta("thinking", event.delta);
      } else if (event.type === "tool_call") {
        calls.push({ id: event.id, name: event.name, input: event.input });
      } else if (event.type === "usage") {
        sawUsage = true;
        usage.inputTokens += event.usage.inputTokens ?? 0;
        usage.outputTokens += event.usage.outputTokens ?? 0;
        usage.cacheReadTokens += event.usage.cacheReadTokens ?? 0;
        usage.cacheWriteTokens += event.usage.cacheWriteTokens ?? 0;
      } else if (event.type === "stop") {
        stop = event.reason;
      }
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    // Every model call is charged, also one that failed or was cancelled halfway.
    state.modelCalls = callNumber + 1;
    await chargeModelCall({ db: deps.db, run: ctx.run, journal, callNumber, modelSpec: model.spec, usage, sawUsage, conversation: state.conversation, received: text });
    telemetry?.modelCallEnded({
      runId: ctx.run.id,
      workspaceId: ctx.run.workspaceId,
      callNumber,
      provider: model.provider.name,
      model: model.model,
      startedAt,
      endedAt: new Date(),
      usage,
      stop: failure ? null : stop,
      errorCode: failure ? callErrorCode(failure) : null,
      contents: { system: state.system, messages: sent, text, calls },
    });
  }
  await journal.flush();
  return { text, calls, stop };
}

/** Why a model call failed, as a code (never its message, which may quote what was sent). */
function callErrorCode(error: unknown): string {
  if (isModelError(error)) return modelErrorCode(error);
  if (isAppError(error)) return error.code;
  return isAbort(error) ? "aborted" : "internal:run";
}

function describeFailure(error: unknown): { code: string; message: string } {
  if (isAppError(error)) return { code: error.code, message: error.message };
  if (isModelError(error)) return { code: modelErrorCode(error), message: error.message };
  logError("A run failed unexpectedly", error);
  return { code: "internal:run", message: "The run stopped because of an internal error." };
}

/**
 * Carries on a run whose process died after it resumed on `approval`: the
 * checkpoint says which calls of the batch were still to run; the steps and
 * the journal say how far they got. A call whose effect was dispatched (its
 * grant consumed, `dispatch_started` journaled) is never run again: it is
 * taken as done when its step finished, or recorded `unconfirmed` when the
 * process died during the effect. A decided call not dispatched yet runs now
 * through the grant (which still allows exactly one). A call started but not
 * dispatched is recorded as not run. The loop then continues as usual.
 */
async function settleAfterCrash(ctx: CallContext, approval: Approval): Promise<void> {
  const { deps, run, state } = ctx;
  const counted = await runCounters(deps.db, run.id);
  state.position = Math.max(state.position, counted.stepCount);
  state.modelCalls = Math.max(state.modelCalls, counted.modelCalls);
  state.fullText = await journalText(deps.db, run.id);
  const known = await stepsOfRun(deps.db, run.id);
  const byCall = new Map(known.map((s) => [s.callId, s]));
  const unfinished = (status: string) => status === "running" || status === "awaiting_approval" || status === "pending";
  while (state.pending.length > 0) {
    const call = state.pending[0]!;
    const step = byCall.get(call.id);
    if (!step) break;
    const started = Date.now();
    const ref = { id: step.id, call: { ...call, input: step.input as Record<string, unknown> }, started };
    let result;
    if (!unfinished(step.status)) {
      result = stepResult(call.id, { status: step.status as "succeeded", output: step.output, error: step.error });
    } else if (step.dispatched || (call.id === approval.callId && (await grantConsumed(deps.db, approval.id)))) {
      result = await finishStep(ctx, ref, { status: "unconfirmed", error: `The server stopped while \`${call.name}\` was running; whether it took effect is unknown, so it was not run again.` });
    } else if (call.id === approval.callId && step.status === "awaiting_approval") {
      result = await resumeCall(ctx, call, approval);
    } else {
      result = await finishStep(ctx, ref, { status: "failed", error: "The server stopped before this call ran; it was not run." });
    }
    state.results.push(result);
    state.pending.shift();
  }
  // Steps of a later turn the dead process had begun are no longer part of the conversation: close them.
  const batch = new Set(state.batch.map((c) => c.id));
  for (const step of known) {
    if (batch.has(step.callId) || !unfinished(step.status)) continue;
    await recordStepFinish(deps.db, step.id, step.input as Record<string, unknown>, step.dispatched
      ? { status: "unconfirmed", error: "The server stopped while this call was running; whether it took effect is unknown." }
      : { status: "failed", error: "The server stopped before this call ran; it was not run." });
  }
}
