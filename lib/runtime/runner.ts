import { and, asc, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { agentRuns, agents, connections, messages, steps, type Agent, type AgentRun, type TaintSource } from "../db/schema";
import { decryptSecret } from "../crypto";
import { chargeUsage } from "../billing/ledger";
import { AppError } from "../errors";
import { estimateTokens, MEMORIES_HEADING } from "../models/offline";
import type { ModelResolver, ResolvedModel } from "../models/registry";
import { ModelError, type ContentBlock, type ModelMessage, type StopReason, type Usage } from "../models/types";
import { recallMemories, rememberMemory } from "../tools/memory";
import { isGated, toolSpec, type AnyTool, type ToolRegistry } from "../tools/registry";
import { ToolError, type ToolContext } from "../tools/types";
import type { EventBus } from "./bus";
import { appendRunEvents, LEASE_SECONDS, RunLostError } from "./journal";
import { RunJournal } from "./run-journal";

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
}

export const controlTopic = (runId: string) => `run-control:${runId}`;
const MAX_RESULT_CHARS = 20_000;
const HISTORY_LIMIT = 40;

interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

function abortReason(signal: AbortSignal): "cancel" | "lost" | null {
  return signal.aborted ? (signal.reason === "lost" ? "lost" : "cancel") : null;
}

const isAbort = (error: unknown) => (error as { name?: string })?.name === "AbortError" || (error as ModelError)?.code === "aborted";

/** The conversation so far as the model sees it: text only, roles alternating, starting with the user. */
async function loadHistory(db: Database, run: AgentRun): Promise<ModelMessage[]> {
  if (!run.sessionId) return [];
  const rows = await db
    .select({ id: messages.id, role: messages.role, content: messages.content })
    .from(messages)
    .where(eq(messages.sessionId, run.sessionId))
    .orderBy(asc(messages.createdAt), asc(messages.role));
  const out: ModelMessage[] = [];
  for (const row of rows.slice(-HISTORY_LIMIT * 2)) {
    if (row.id === run.replyMessageId) continue;
    const text = row.content.trim();
    if (!text) continue;
    const last = out[out.length - 1];
    if (last && last.role === row.role) last.content.push({ type: "text", text });
    else if (out.length > 0 || row.role === "user") out.push({ role: row.role, content: [{ type: "text", text }] });
  }
  return out.slice(-HISTORY_LIMIT);
}

async function systemPrompt(db: Database, agent: Agent, question: string): Promise<string> {
  const memories = await recallMemories(db, { agentId: agent.id, query: question, limit: 6 }).catch(() => []);
  const parts = [
    agent.systemPrompt.trim() || `You are ${agent.name}, an agent of this team.`,
    `Your handle is @${agent.handle}. Use your tools when they help; say plainly when something failed.`,
  ];
  if (memories.length > 0) parts.push(`${MEMORIES_HEADING}\n${memories.map((m) => `- ${m.content.replace(/\s+/g, " ").slice(0, 500)}`).join("\n")}`);
  return parts.join("\n\n");
}

/**
 * Drives one run from its current state to the end of the model's turn:
 * stream the model, run the allowed tools, feed the results back, repeat.
 * Every event is journaled before anyone sees it. The run row's claim is
 * ours while we drive; if it is taken away (cancel, sweeper), we stop.
 */
export async function driveRun(deps: RuntimeDeps, runId: string, external?: AbortSignal): Promise<void> {
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
      if (state === "lost") controller.abort("lost");
      if (state === "cancel") controller.abort("cancel");
    });
  }, deps.heartbeatMs);

  const totals = { input: 0, output: 0, credits: 0, calls: 0 };
  let fullText = "";
  try {
    if (!agent) throw new AppError("not_found:agent", "The agent of this run no longer exists.");
    const [userMessage] = run.userMessageId ? await db.select().from(messages).where(eq(messages.id, run.userMessageId)) : [];
    const question = userMessage?.content ?? "";
    let model: ResolvedModel;
    try {
      model = deps.models(agent.model);
    } catch (error) {
      throw error instanceof AppError ? error : new AppError("unprocessable:model", String(error));
    }
    const allowed = agent.tools.map((name) => deps.tools.get(name)).filter((t): t is AnyTool => !!t);
    const tools = allowed.map(toolSpec);
    const conversation = await loadHistory(db, run);
    if (conversation.length === 0 || conversation[conversation.length - 1]!.role !== "user") {
      conversation.push({ role: "user", content: [{ type: "text", text: question || "(no text)" }] });
    }
    const system = await systemPrompt(db, agent, question);
    const taint: TaintSource[] = [...run.taint];
    let position = run.stepCount;

    await journal.emit({
      type: "run_started",
      payload: { runId, agentId: agent.id, agentHandle: agent.handle, model: agent.model, offline: model.offline, replyMessageId: run.replyMessageId ?? "" },
    });

    for (let call = 0; ; call++) {
      if (call >= deps.maxSteps) {
        throw new AppError("unprocessable:step_limit", `The run stopped after ${deps.maxSteps} model calls, the limit for one run.`);
      }
      const usage: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
      let sawUsage = false;
      let segment = "";
      const calls: ToolCall[] = [];
      let stop: StopReason = "end_turn";
      try {
        for await (const event of model.provider.stream({ model: model.model, system, messages: conversation, tools, maxTokens: deps.maxTokens, signal: controller.signal })) {
          if (event.type === "text") {
            if (!segment && fullText) {
              // A new paragraph after tool calls: journaled like any delta, so replay equals the stored reply.
              journal.delta("text", "\n\n");
              fullText += "\n\n";
            }
            if (!fullText) void markFirstToken(db, runId);
            segment += event.delta;
            fullText += event.delta;
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
        await chargeCall(deps, run, journal, call, model.spec, usage, sawUsage, conversation, segment, totals);
      }
      await journal.flush();

      if (calls.length === 0 || stop === "end_turn" || stop === "stop_sequence" || stop === "refusal") break;
      conversation.push({
        role: "assistant",
        content: [
          ...(segment.trim() ? [{ type: "text" as const, text: segment }] : []),
          ...calls.map((c) => ({ type: "tool_use" as const, id: c.id, name: c.name, input: c.input })),
        ],
      });
      const results: ContentBlock[] = [];
      for (const toolCall of calls) {
        position += 1;
        results.push(await runTool(deps, { run, agent, journal, allowed, taint, position, call: toolCall, signal: controller.signal }));
      }
      conversation.push({ role: "user", content: results });
    }

    await journal.flush();
    await finishRun(deps, runId, { state: "succeeded", replyText: fullText });
    if (run.replyMessageId && fullText.trim()) {
      await rememberMemory(db, { workspaceId: run.workspaceId, agentId: run.agentId, runId, content: fullText.slice(0, 4000), kind: "reply" }).catch(
        (error: unknown) => console.error(`Could not remember the reply of run ${runId}`, error),
      );
    }
    await appendRunEvents(db, bus, runId, null, [{ type: "run_completed", payload: { replyMessageId: run.replyMessageId ?? "" } }]);
  } catch (error) {
    const reason = abortReason(controller.signal);
    if (error instanceof RunLostError || reason === "lost") {
      journal.discard();
      return;
    }
    await journal.flush().catch(() => journal.discard());
    if (reason === "cancel" && isAbort(error)) {
      if (await finishRun(deps, runId, { state: "cancelled", replyText: fullText })) {
        await appendRunEvents(db, bus, runId, null, [{ type: "run_cancelled", payload: { reason: "Stopped by a person." } }]);
      }
      return;
    }
    const { code, message } = describeFailure(error);
    if (await finishRun(deps, runId, { state: "failed", replyText: fullText, code, message })) {
      await appendRunEvents(db, bus, runId, null, [{ type: "run_failed", payload: { code, message } }]);
    }
  } finally {
    clearInterval(heartbeat);
    unsubscribe();
    external?.removeEventListener("abort", stopOnExternal);
  }
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
      .set({
        state: end.state,
        error: end.message ?? null,
        errorCode: end.code ?? null,
        claimedBy: null,
        leaseExpiresAt: null,
        finishedAt: new Date(),
      })
      .where(and(eq(agentRuns.id, runId), eq(agentRuns.claimedBy, deps.instanceId), eq(agentRuns.state, "running")))
      .returning({ replyMessageId: agentRuns.replyMessageId });
    if (!row) return false;
    if (row.replyMessageId) await tx.update(messages).set({ content: end.replyText }).where(eq(messages.id, row.replyMessageId));
    return true;
  });
}

/**
 * Writes the usage row of one model call (idempotent per run and call) and
 * the run's totals. When the provider reported nothing (a call cut short),
 * tokens are estimated from what was sent and received, and marked so.
 */
async function chargeCall(
  deps: RuntimeDeps,
  run: AgentRun,
  journal: RunJournal,
  call: number,
  modelSpec: string,
  usage: Usage,
  sawUsage: boolean,
  conversation: ModelMessage[],
  received: string,
  totals: { input: number; output: number; credits: number; calls: number },
) {
  const estimated = !sawUsage || (usage.outputTokens === 0 && received.length > 0);
  if (!sawUsage || usage.inputTokens === 0) usage.inputTokens = estimateTokens(JSON.stringify(conversation));
  if (usage.outputTokens === 0 && received.length > 0) usage.outputTokens = estimateTokens(received);
  let credits = 0;
  try {
    const result = await chargeUsage(deps.db, {
      workspaceId: run.workspaceId,
      agentId: run.agentId,
      source: { kind: "run", runId: run.id },
      model: modelSpec,
      usage,
      idempotencyKey: `run:${run.id}:call:${run.modelCalls + call}`,
    });
    credits = result.credits;
  } catch (error) {
    // Billing never fails a run: the totals below let reconciliation find the gap.
    console.error(`Could not charge model call ${call} of run ${run.id}`, error);
  }
  totals.input += usage.inputTokens;
  totals.output += usage.outputTokens;
  totals.credits += credits;
  totals.calls += 1;
  await deps.db
    .update(agentRuns)
    .set({
      inputTokens: sql`${agentRuns.inputTokens} + ${usage.inputTokens}`,
      outputTokens: sql`${agentRuns.outputTokens} + ${usage.outputTokens}`,
      credits: sql`${agentRuns.credits} + ${credits}`,
      modelCalls: run.modelCalls + call + 1,
    })
    .where(eq(agentRuns.id, run.id))
    .catch((error: unknown) => console.error(`Could not update the totals of run ${run.id}`, error));
  await journal
    .emit({ type: "usage", payload: { model: modelSpec, inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, credits, estimated } })
    .catch(() => undefined);
}

async function credentialFor(deps: RuntimeDeps, workspaceId: string, provider: string) {
  const [row] = await deps.db
    .select({ secret: connections.secret, config: connections.config })
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), eq(connections.provider, provider)))
    .limit(1);
  return row ? { secret: decryptSecret(row.secret, deps.encryptionKey), config: row.config } : null;
}

function withTimeout<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      const error = new Error(signal.reason === "timeout" ? "timeout" : "aborted");
      error.name = signal.reason === "timeout" ? "TimeoutError" : "AbortError";
      reject(error);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Runs one tool call as a step: stored, journaled, validated, executed (or refused), and its taint recorded. */
async function runTool(
  deps: RuntimeDeps,
  ctx: {
    run: AgentRun;
    agent: Agent;
    journal: RunJournal;
    allowed: AnyTool[];
    taint: TaintSource[];
    position: number;
    call: ToolCall;
    signal: AbortSignal;
  },
): Promise<ContentBlock> {
  const { run, agent, journal, call } = ctx;
  const tool = ctx.allowed.find((t) => t.name === call.name);
  const parsed = tool?.input.safeParse(call.input);
  const [step] = await deps.db
    .insert(steps)
    .values({
      workspaceId: run.workspaceId,
      runId: run.id,
      messageId: run.replyMessageId,
      position: ctx.position,
      callId: call.id,
      tool: call.name,
      input: call.input,
      status: "running",
      startedAt: new Date(),
    })
    .returning({ id: steps.id });
  const stepId = step!.id;
  await deps.db.update(agentRuns).set({ stepCount: ctx.position }).where(eq(agentRuns.id, run.id));
  let preview = null;
  if (tool && parsed?.success) {
    try {
      preview = tool.preview(parsed.data);
    } catch {
      preview = null;
    }
  }
  await journal.emit({ type: "step_started", payload: { stepId, callId: call.id, tool: call.name, input: call.input, position: ctx.position, preview } });

  const started = Date.now();
  let status: "succeeded" | "failed" | "refused" = "succeeded";
  let output: unknown = null;
  let error: string | null = null;
  let stepTaint: string[] = [];
  if (!tool) {
    status = "refused";
    error = `The tool \`${call.name}\` is not available to @${agent.handle}.`;
  } else if (!parsed?.success) {
    status = "failed";
    error = `Invalid input for \`${call.name}\`: ${parsed?.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; ")}`;
  } else if (isGated(tool)) {
    status = "refused";
    error = `\`${tool.name}\` has effects (${tool.effects.join(", ")}) that need a person's approval, so it was refused and nothing happened.`;
  } else {
    const toolContext: ToolContext = {
      db: deps.db,
      workspaceId: run.workspaceId,
      agentId: agent.id,
      agentHandle: agent.handle,
      runId: run.id,
      stepId,
      credential: (provider) => credentialFor(deps, run.workspaceId, provider),
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(tool.timeoutMs ?? 30_000)]),
    };
    try {
      output = await withTimeout(tool.execute(toolContext, parsed.data), toolContext.signal);
      const source = tool.taint(parsed.data, output);
      if (source) {
        stepTaint = [source];
        if (!ctx.taint.some((t) => t.source === source)) {
          ctx.taint.push({ source, stepId });
          await deps.db.update(agentRuns).set({ taint: ctx.taint }).where(eq(agentRuns.id, run.id));
          await journal.emit({ type: "run_tainted", payload: { source, stepId } });
        }
      }
    } catch (caught) {
      if (ctx.signal.aborted) throw caught;
      status = "failed";
      error =
        caught instanceof ToolError
          ? caught.message
          : (caught as Error)?.name === "TimeoutError"
            ? `\`${tool.name}\` did not finish within ${(tool.timeoutMs ?? 30_000) / 1000} s.`
            : `\`${tool.name}\` failed: ${(caught as Error)?.message ?? String(caught)}`;
      if (!(caught instanceof ToolError) && (caught as Error)?.name !== "TimeoutError") console.error(`Tool ${tool.name} crashed`, caught);
    }
  }

  await deps.db
    .update(steps)
    .set({ status, output: output ?? null, error, taint: stepTaint, finishedAt: new Date() })
    .where(eq(steps.id, stepId));
  await journal.emit({
    type: "step_finished",
    payload: { stepId, callId: call.id, tool: call.name, status, output: output ?? undefined, error, taint: stepTaint, durationMs: Date.now() - started },
  });
  const content = error ? JSON.stringify({ error }) : JSON.stringify(output ?? null);
  return {
    type: "tool_result",
    toolUseId: call.id,
    content: content.length > MAX_RESULT_CHARS ? `${content.slice(0, MAX_RESULT_CHARS)}…(truncated)` : content,
    isError: !!error,
  };
}
