import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { agentRuns, agents, messages, type Agent, type AgentRun, type Approval, type TaintSource } from "../db/schema";
import { AppError } from "../errors";
import type { ModelResolver, ResolvedModel } from "../models/registry";
import { ModelError, type ContentBlock, type ModelMessage, type StopReason, type Usage } from "../models/types";
import { correlateResults, errorResult, validCallIds, type CircuitBreakers, type PolicyGate, type ProposedCall } from "../safety/dispatch";
import { memoryScopeOf } from "../access/access";
import { rememberMemory } from "../tools/memory";
import { toolSpec, type AnyTool, type ToolRegistry } from "../tools/registry";
import type { EventBus } from "./bus";
import { buildSystemPrompt, loadHistory } from "./context";
import { appendRunEvents, LEASE_SECONDS, RunLostError } from "./journal";
import { RunJournal } from "./run-journal";
import { postReply, type Delivery } from "./delivery";
import { recordFeed, recordRunFinished } from "../feed/feed";
import { chargeModelCall } from "./run-usage";
import { dispatchCall, resumeCall, suspendRun, type CallContext } from "./tool-call";

export interface RuntimeDeps {
  db: Database;
  bus: EventBus;
  models: ModelResolver;
  tools: ToolRegistry;
  encryptionKey: Buffer;
  /** Names this process in run claims. */
  instanceId: string;
  /** Most model calls in one run. */
  maxSteps: number;
  maxTokens: number;
  /** How long text deltas are gathered into one journal row (0: one row per delta). */
  coalesceMs: number;
  heartbeatMs: number;
  breakers: CircuitBreakers;
  /** An extra policy hook applied before the workspace policy; it can tighten or rewrite, never waive. */
  gate?: PolicyGate;
  /** Starts the turns of agents that another agent wrote to. */
  delivery?: Delivery;
  /** Checked before every model call; throws (e.g. `budget_exceeded`) to stop the run before it spends. */
  checkBudget?: (input: { workspaceId: string; agentId: string; runId: string }) => Promise<void>;
}

/**
 * Everything needed to continue a run in any process: stored as the run's
 * checkpoint when it suspends, read back when it resumes.
 */
export interface LoopState {
  version: 1;
  system: string;
  conversation: ModelMessage[];
  fullText: string;
  position: number;
  modelCalls: number;
  taint: TaintSource[];
  /** The model's current batch of tool calls, the ones still to dispatch, and the results so far. */
  batch: ProposedCall[];
  pending: ProposedCall[];
  results: Extract<ContentBlock, { type: "tool_result" }>[];
}

export const controlTopic = (runId: string) => `run-control:${runId}`;

function abortReason(signal: AbortSignal): "cancel" | "lost" | null {
  return signal.aborted ? (signal.reason === "lost" ? "lost" : "cancel") : null;
}

const isAbort = (error: unknown) => (error as { name?: string })?.name === "AbortError" || (error as ModelError)?.code === "aborted";

function parseCheckpoint(raw: unknown): LoopState {
  const state = raw as Partial<LoopState> | null;
  if (!state || state.version !== 1 || !Array.isArray(state.conversation) || !Array.isArray(state.pending) || !Array.isArray(state.results)) {
    throw new AppError("internal:checkpoint", "The run's saved state is damaged and it cannot continue.");
  }
  return state as LoopState;
}

/**
 * Drives one run until the model ends its turn, the run suspends for an
 * approval, fails, or is cancelled. With `resume`, it first applies the
 * decision on the call the run was suspended on, then carries on. Every
 * event is journaled before anyone sees it; while we drive, the run's claim
 * is ours, and if it is taken away (cancel, sweeper) we stop.
 */
export async function driveRun(deps: RuntimeDeps, runId: string, external?: AbortSignal, resume?: Approval): Promise<void> {
  const { db, bus } = deps;
  const [run] = await db.select().from(agentRuns).where(eq(agentRuns.id, runId));
  if (!run || run.state !== "running" || run.claimedBy !== deps.instanceId) return;
  const [agent] = await db.select().from(agents).where(eq(agents.id, run.agentId));
  const journal = new RunJournal(db, bus, runId, deps.instanceId, deps.coalesceMs);
  const controller = new AbortController();
  const stopOnExternal = () => controller.abort(external?.reason ?? "cancel");
  external?.addEventListener("abort", stopOnExternal);
  const unsubscribe = bus.subscribe(controlTopic(runId), (m) => {
    if (m.action === "cancel") controller.abort("cancel");
  });
  const heartbeat = setInterval(() => {
    void renewLease(deps, runId).then((state) => {
      if (state !== "ok") controller.abort(state);
    });
  }, deps.heartbeatMs);

  let state: LoopState | undefined;
  try {
    if (!agent) throw new AppError("not_found:agent", "The agent of this run no longer exists.");
    let model: ResolvedModel;
    try {
      model = deps.models(agent.model);
    } catch (error) {
      throw error instanceof AppError ? error : new AppError("unprocessable:model", String(error));
    }
    const allowed = agent.tools.map((name) => deps.tools.get(name)).filter((t): t is AnyTool => !!t);
    if (resume) {
      state = parseCheckpoint(run.checkpoint);
    } else {
      state = await freshState(db, run, agent);
      await recordFeed(db, bus, [
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
    }
    const ctx: CallContext = { deps, run, agent, journal, allowed, state, signal: controller.signal };

    if (resume) {
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
          return;
        }
        state.results.push(outcome.result);
        state.pending.shift();
      }
      if (state.batch.length > 0) {
        state.conversation.push({ role: "user", content: correlateResults(state.batch, state.results) });
        state.batch = [];
        state.results = [];
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
    if (!(await finishRun(deps, runId, { state: "succeeded", replyText: state.fullText }))) return;
    if (state.fullText.trim()) {
      await rememberMemory(db, { workspaceId: run.workspaceId, agentId: run.agentId, runId, content: state.fullText.slice(0, 4000), kind: "reply", ...memoryScopeOf(run) }).catch(
        (error: unknown) => console.error(`Could not remember the reply of run ${runId}`, error),
      );
    }
    await appendRunEvents(db, bus, runId, null, [{ type: "run_completed", payload: { replyMessageId: run.replyMessageId ?? "" } }]);
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
      if (await finishRun(deps, runId, { state: "cancelled", replyText })) {
        await appendRunEvents(db, bus, runId, null, [{ type: "run_cancelled", payload: { reason: "Stopped by a person." } }]);
        await recordRunFinished(deps, run, agent?.handle, "cancelled");
      }
      return;
    }
    const { code, message } = describeFailure(error);
    if (await finishRun(deps, runId, { state: "failed", replyText, code, message })) {
      await appendRunEvents(db, bus, runId, null, [{ type: "run_failed", payload: { code, message } }]);
      await recordRunFinished(deps, run, agent?.handle, "failed", { code, message });
    }
  } finally {
    clearInterval(heartbeat);
    unsubscribe();
    external?.removeEventListener("abort", stopOnExternal);
  }
}

async function currentReply(db: Database, replyMessageId: string | null): Promise<string> {
  if (!replyMessageId) return "";
  const [row] = await db.select({ content: messages.content }).from(messages).where(eq(messages.id, replyMessageId));
  return row?.content ?? "";
}

async function freshState(db: Database, run: AgentRun, agent: Agent): Promise<LoopState> {
  const [userMessage] = run.userMessageId ? await db.select().from(messages).where(eq(messages.id, run.userMessageId)) : [];
  const question = userMessage?.content ?? run.inputText ?? "";
  const conversation = await loadHistory(db, run);
  if (conversation.length === 0 || conversation[conversation.length - 1]!.role !== "user") {
    conversation.push({ role: "user", content: [{ type: "text", text: question || "(no text)" }] });
  }
  return {
    version: 1,
    system: await buildSystemPrompt(db, agent, question, run),
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

/** One model call: streams text into the journal, collects tool calls, and charges the call whatever happens. */
async function callModel(deps: RuntimeDeps, ctx: CallContext, model: ResolvedModel, allowed: AnyTool[]) {
  const { state, journal } = ctx;
  if (state.modelCalls >= deps.maxSteps) {
    throw new AppError("unprocessable:step_limit", `The run stopped after ${deps.maxSteps} model calls, the limit for one run.`);
  }
  await deps.checkBudget?.({ workspaceId: ctx.run.workspaceId, agentId: ctx.run.agentId, runId: ctx.run.id });
  const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  let sawUsage = false;
  let text = "";
  const calls: ProposedCall[] = [];
  let stop: StopReason = "end_turn";
  const callNumber = state.modelCalls;
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
        if (!state.fullText) void markFirstToken(deps.db, ctx.run.id);
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
  } finally {
    // Every model call is charged, also one that failed or was cancelled halfway.
    state.modelCalls = callNumber + 1;
    await chargeModelCall({ db: deps.db, run: ctx.run, journal, callNumber, modelSpec: model.spec, usage, sawUsage, conversation: state.conversation, received: text });
  }
  await journal.flush();
  return { text, calls, stop };
}

function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof AppError) return { code: error.code, message: error.message };
  if (error instanceof ModelError) return { code: `model:${error.code}`, message: error.message };
  console.error("A run failed unexpectedly", error);
  return { code: "internal:run", message: "The run stopped because of an internal error." };
}

async function markFirstToken(db: Database, runId: string) {
  await db
    .update(agentRuns)
    .set({ firstTokenAt: sql`coalesce(${agentRuns.firstTokenAt}, now())` })
    .where(eq(agentRuns.id, runId))
    .catch(() => undefined);
}

/** Renews our lease; tells whether the run was cancelled or taken from us meanwhile. */
async function renewLease(deps: RuntimeDeps, runId: string): Promise<"ok" | "cancel" | "lost"> {
  try {
    const [row] = await deps.db
      .update(agentRuns)
      .set({ leaseExpiresAt: sql`now() + make_interval(secs => ${LEASE_SECONDS})` })
      .where(and(eq(agentRuns.id, runId), eq(agentRuns.claimedBy, deps.instanceId), eq(agentRuns.state, "running")))
      .returning({ cancelRequestedAt: agentRuns.cancelRequestedAt });
    if (!row) return "lost";
    return row.cancelRequestedAt ? "cancel" : "ok";
  } catch {
    return "ok";
  }
}

/** Ends the run we drive, once; false when it was no longer ours to end. */
async function finishRun(
  deps: RuntimeDeps,
  runId: string,
  end: { state: "succeeded" | "failed" | "cancelled"; replyText: string; code?: string; message?: string },
): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .update(agentRuns)
      .set({ state: end.state, error: end.message ?? null, errorCode: end.code ?? null, claimedBy: null, leaseExpiresAt: null, checkpoint: null, finishedAt: new Date() })
      .where(and(eq(agentRuns.id, runId), eq(agentRuns.claimedBy, deps.instanceId), eq(agentRuns.state, "running")))
      .returning({ replyMessageId: agentRuns.replyMessageId });
    if (!row) return false;
    if (row.replyMessageId) await tx.update(messages).set({ content: end.replyText }).where(eq(messages.id, row.replyMessageId));
    return true;
  });
}
