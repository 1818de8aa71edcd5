import crypto from "node:crypto";
import { and, asc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { agentRuns, approvals, doorSessions, executionGrants, type Agent, type AgentRun, type Approval, type DoorToken } from "../db/schema";
import { recordAudit } from "../audit";
import { AppError } from "../errors";
import { recordFeed, recordRunFinished } from "../feed/feed";
import { approvalsTopic } from "../safety/approvals";
import { governApproval } from "../safety/governor";
import { callFingerprint } from "../safety/fingerprint";
import type { ProposedCall } from "../safety/dispatch";
import type { AnyTool } from "../tools/registry";
import { RunJournal } from "../journal/run-journal";
import { journalWriterFor } from "../journal/run-journal-writer";
import { getRunWithAgent } from "../runs/run-reads";
import { claimParkedRun, claimResume, createWakeRuns, endRunFromOutside, finishRun, parkRun, pausedMessage, recordTaint, renewLease } from "../runs";
import { dispatchCall, refusalOf, resumeCall, suspendRun } from "../runtime/tool-call";
import { parseCheckpoint } from "../runtime/checkpoint";
import type { CallContext, LoopState, RuntimeDeps, ToolResultBlock } from "../runtime/types";

/**
 * A tool call that came through the door: an outside agent acting as one of
 * the workspace's agents with a door token. Each call is a run of that agent
 * (`trigger = door`, on behalf of the person who made the token) with one
 * step, and goes through the same governed dispatch as the agent's own calls.
 * What came through the door is untrusted: the run is tainted `door:<name>`.
 *
 * A gated call suspends its run like any other; the caller waits for the
 * decision. A decided approval of a door run is not resumed by the runtime
 * when it is approved: the waiting request (or, after a timeout, a repeat of
 * the same call) claims it, so the effect happens once, for the caller.
 */

export interface DoorCaller {
  token: Pick<DoorToken, "id" | "name" | "createdByUserId">;
  agent: Agent;
  /** The caller's door session, when it keeps one: its calls are steps of one run. */
  session?: { id: string; runId: string };
}

export type DoorOutcome =
  | { kind: "result"; result: ToolResultBlock; runId: string }
  | { kind: "timeout"; approvalId: string; runId: string }
  | { kind: "busy"; approvalId: string };

export interface DoorCallOptions {
  /** How long to wait for a decision on a gated call. */
  waitMs: number;
  /** Called while waiting, so the caller can tell its client it is still alive. */
  onWaiting?: (approvalId: string, waitedMs: number) => Promise<void>;
  progressEveryMs?: number;
}

export const doorTaint = (tokenName: string) => `door:${tokenName}`;
export const doorVia = (tokenName: string) => `door:${tokenName}`;

function contextFor(deps: RuntimeDeps, run: AgentRun, agent: Agent, state: LoopState): CallContext {
  const allowed = agent.tools.map((name) => deps.tools.get(name)).filter((t): t is AnyTool => !!t);
  const journal = new RunJournal(journalWriterFor(deps.db, deps.bus), run.id, deps.instanceId, 0);
  return { deps, run, agent, journal, allowed, state, signal: new AbortController().signal, startRuns: () => undefined };
}

/** Keeps our claim on the run alive while a call runs (a tool may take longer than a lease). */
async function withLease<T>(deps: RuntimeDeps, runId: string, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void renewLease(deps.db, runId, deps.instanceId), deps.heartbeatMs);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/** Whether the run belongs to an open door session (then it waits for the session's next call). */
async function inOpenSession(deps: RuntimeDeps, runId: string): Promise<boolean> {
  const [row] = await deps.db.select({ id: doorSessions.id }).from(doorSessions).where(and(eq(doorSessions.runId, runId), isNull(doorSessions.endedAt)));
  return !!row;
}

/** After a call: the run of an open session is parked for its next call; any other door run ends. */
async function finishDoorCall(ctx: CallContext): Promise<void> {
  await ctx.journal.flush();
  if ((await inOpenSession(ctx.deps, ctx.run.id)) && (await parkRun(ctx.deps.db, ctx.run.id, ctx.deps.instanceId))) return;
  await finishDoorRun(ctx);
}

async function finishDoorRun(ctx: CallContext): Promise<void> {
  await ctx.journal.flush();
  const done = await finishRun(ctx.deps.db, ctx.deps.bus, {
    runId: ctx.run.id,
    owner: ctx.deps.instanceId,
    state: "succeeded",
    replyText: "",
    event: { type: "run_completed", payload: { replyMessageId: "" } },
  });
  if (done) await recordRunFinished(ctx.deps, ctx.run, ctx.agent.handle, "succeeded");
}

/**
 * Applies the decision on a suspended door run, once: whoever claims it
 * (the waiting request, a repeat of the call, the runtime for a refusal)
 * runs the call through its grant or records the refusal, and ends the run.
 * Null when someone else claimed it first.
 */
export async function settleDoorRun(deps: RuntimeDeps, runId: string): Promise<ToolResultBlock | null> {
  const approval = await claimResume(deps.db, deps.bus, runId, deps.instanceId);
  if (!approval) return null;
  const { run, agent } = await getRunWithAgent(deps.db, runId);
  if (!run || !agent) return null;
  const state = parseCheckpoint(run.checkpoint);
  const head = state.pending[0];
  if (!head || head.id !== approval.callId) throw new AppError("internal:checkpoint", "The door call's saved state does not match its approval.");
  const ctx = contextFor(deps, run, agent, state);
  const result = await withLease(deps, runId, () => resumeCall(ctx, head, approval));
  await finishDoorCall(ctx);
  return result;
}

/**
 * The latest undecided-or-unused approval of a door run of this agent for
 * exactly this call, asked through this token: another token of the same
 * agent never uses it.
 */
async function findOpenDoorApproval(deps: RuntimeDeps, agentId: string, tokenId: string, fingerprint: string): Promise<Approval | null> {
  const [row] = await deps.db
    .select({ approval: approvals })
    .from(approvals)
    .innerJoin(agentRuns, eq(agentRuns.id, approvals.runId))
    .innerJoin(doorSessions, and(eq(doorSessions.runId, agentRuns.id), eq(doorSessions.tokenId, tokenId)))
    .where(
      and(
        eq(approvals.agentId, agentId),
        eq(approvals.fingerprint, fingerprint),
        inArray(approvals.status, ["pending", "approved"]),
        isNull(approvals.resumedAt),
        eq(agentRuns.trigger, "door"),
        eq(agentRuns.state, "suspended"),
      ),
    )
    .orderBy(asc(approvals.createdAt))
    .limit(1);
  return row?.approval ?? null;
}

/** Reads an approval's status until it is decided or the time is up. */
async function waitForDecision(deps: RuntimeDeps, approval: { id: string; workspaceId: string }, options: DoorCallOptions): Promise<Approval | null> {
  const started = Date.now();
  const deadline = started + options.waitMs;
  const every = options.progressEveryMs ?? 5_000;
  let wake: () => void = () => undefined;
  const unsubscribe = deps.bus.subscribe(approvalsTopic(approval.workspaceId), (m) => {
    if (m.approvalId === approval.id) wake();
  });
  try {
    let lastProgress = -Infinity;
    for (;;) {
      const [row] = await deps.db.select().from(approvals).where(eq(approvals.id, approval.id));
      if (!row) return null;
      if (row.status !== "pending") return row;
      const now = Date.now();
      if (now >= deadline) return null;
      if (now - lastProgress >= every) {
        lastProgress = now;
        await options.onWaiting?.(approval.id, now - started);
      }
      // Woken by the decision's notification, or by the clock (another instance, a missed message).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(every, 1_000, Math.max(0, deadline - now)));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    unsubscribe();
  }
}

/** Waits on a door run's approval, then applies the decision (or says it is still open). */
async function awaitDoorApproval(deps: RuntimeDeps, approval: Pick<Approval, "id" | "workspaceId" | "runId">, options: DoorCallOptions): Promise<DoorOutcome> {
  const decided = await waitForDecision(deps, approval, options);
  if (!decided) return { kind: "timeout", approvalId: approval.id, runId: approval.runId };
  const result = await settleDoorRun(deps, approval.runId);
  if (result) return { kind: "result", result, runId: approval.runId };
  if (decided.status !== "approved") {
    // Someone else ended it (the runtime records refusals at once): the caller still learns why.
    const error = refusalOf(decided.status, decided.reason);
    return { kind: "result", runId: approval.runId, result: { type: "tool_result", toolUseId: decided.callId, content: JSON.stringify({ refused: true, decision: decided.status, reason: decided.reason, error }), isError: true } };
  }
  return { kind: "busy", approvalId: approval.id };
}

/**
 * Calls one of the agent's tools through the door. A repeat of a call whose
 * approval is still open waits on that approval (or uses its grant) rather
 * than asking again.
 */
export async function callThroughDoor(deps: RuntimeDeps, caller: DoorCaller, call: { name: string; input: Record<string, unknown> }, options: DoorCallOptions): Promise<DoorOutcome> {
  const { agent, token } = caller;
  const tool = agent.tools.includes(call.name) ? deps.tools.get(call.name) : undefined;
  const parsed = tool?.input.safeParse(call.input);
  if (tool && parsed?.success) {
    const open = await findOpenDoorApproval(deps, agent.id, token.id, callFingerprint(tool.name, parsed.data));
    if (open) return awaitDoorApproval(deps, open, options);
  }

  const run = caller.session ? await claimSessionRun(deps, caller.session.runId, options) : await startDoorRun(deps, caller, call.name, null);
  const position = run.stepCount;
  const proposed: ProposedCall = { id: `door_${crypto.randomUUID()}`, name: call.name, input: call.input };
  const state: LoopState = { version: 2, system: "", conversation: [], fullText: "", position, modelCalls: 0, taint: run.taint, batch: [proposed], pending: [proposed], results: [] };
  const ctx = contextFor(deps, run, agent, state);
  const outcome = await withLease(deps, run.id, () => dispatchCall(ctx, proposed));
  if (outcome.kind === "result") {
    await finishDoorCall(ctx);
    return { kind: "result", result: outcome.result, runId: run.id };
  }
  const approvalId = await suspendRun(ctx, outcome.approval);
  // The governor may decide it at once; the wait below then sees the decision.
  await governApproval(deps, approvalId);
  return awaitDoorApproval(deps, { id: approvalId, workspaceId: run.workspaceId, runId: run.id }, options);
}

/**
 * Starts a door run of the agent, tainted by the token, on behalf of the
 * token's maker, with its door session: `sessionId` for a session the client
 * keeps (the run is parked for its calls), null for a single call (the
 * session is over with it). Returns the run, claimed by us and running.
 */
export async function startDoorRun(deps: RuntimeDeps, caller: DoorCaller, tool: string | null, sessionId: string | null): Promise<AgentRun> {
  const { agent, token } = caller;
  const { runIds, paused } = await createWakeRuns(deps.db, {
    workspaceId: agent.workspaceId,
    agentIds: [agent.id],
    trigger: "door",
    threadId: null,
    roomId: null,
    sourceMessageId: null,
    inputText: tool ? `\`${tool}\` called through the door with the token “${token.name}”.` : `A session through the door with the token “${token.name}”.`,
    hop: 0,
    chain: { onBehalfOfUserId: token.createdByUserId, via: [doorVia(token.name)], originSessionId: null, originRoomId: null },
    owner: deps.instanceId,
  });
  if (paused.length > 0 || !runIds[0]) throw new AppError("conflict:agent_paused", `${pausedMessage(agent.handle)} Nothing was run; ask a manager to resume it.`);
  const runId = runIds[0];
  await deps.db.insert(doorSessions).values({ ...(sessionId ? { id: sessionId } : {}), workspaceId: agent.workspaceId, tokenId: token.id, runId, endedAt: sessionId ? null : new Date() });
  await recordAudit(deps.db, {
    workspaceId: agent.workspaceId,
    actor: { kind: "agent", id: agent.id },
    action: "door_token.used",
    target: { type: "door_token", id: token.id },
    detail: { token: token.name, agent: agent.handle, runId, session: sessionId !== null, ...(tool ? { tool } : {}) },
  });
  const taint = [{ source: doorTaint(token.name), stepId: null }];
  await recordTaint(deps.db, runId, taint);
  const { run } = await getRunWithAgent(deps.db, runId);
  if (!run) throw new AppError("internal:run", "The door run vanished.");
  await recordFeed(deps.db, deps.bus, [
    { workspaceId: run.workspaceId, kind: "run_started", agentId: agent.id, runId, payload: { agent: agent.handle, trigger: "door", door: token.name, tool, sessionId: null, hop: 0 } },
  ]);
  const journal = new RunJournal(journalWriterFor(deps.db, deps.bus), runId, deps.instanceId, 0);
  await journal.emit({ type: "run_started", payload: { runId, agentId: agent.id, agentHandle: agent.handle, model: agent.model, offline: true, replyMessageId: "" } });
  for (const t of taint) await journal.emit({ type: "run_tainted", payload: { source: t.source, stepId: null } });
  await journal.flush();
  return run;
}

/** Claims the parked run of a door session for one call, waiting (bounded) while another call of the session holds it. */
async function claimSessionRun(deps: RuntimeDeps, runId: string, options: DoorCallOptions): Promise<AgentRun> {
  const deadline = Date.now() + Math.max(options.waitMs, 1_000);
  for (;;) {
    if (await claimParkedRun(deps.db, runId, deps.instanceId)) {
      const { run } = await getRunWithAgent(deps.db, runId);
      if (run) return run;
    }
    const { run } = await getRunWithAgent(deps.db, runId);
    if (!run || !["running", "suspended"].includes(run.state)) throw new AppError("conflict:door_session", "This door session's run has ended; start a new session.");
    if (Date.now() >= deadline) throw new AppError("conflict:door_session", "This door session is still busy with another call (or waits on an approval): repeat that call, or start a new session.");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const LAPSED_GRANT_MESSAGE = "The call was approved, but nobody repeated it through the door before its grant lapsed; nothing was done.";

/**
 * Ends an approved door run whose caller never came back for the grant, once
 * the grant has lapsed: the run fails with `door:grant_lapsed` and says why.
 * False while the grant can still be used (or the run is no longer waiting).
 */
export async function endLapsedDoorRun(deps: RuntimeDeps, runId: string): Promise<boolean> {
  const [lapsed] = await deps.db
    .select({ id: executionGrants.id })
    .from(executionGrants)
    .innerJoin(approvals, eq(approvals.id, executionGrants.approvalId))
    .where(and(eq(approvals.runId, runId), eq(approvals.status, "approved"), isNull(approvals.resumedAt), isNull(executionGrants.consumedAt), lt(executionGrants.expiresAt, sql`now()`)))
    .limit(1);
  if (!lapsed) return false;
  return endRunFromOutside(deps.db, deps.bus, runId, { from: ["suspended"], to: "failed", code: "door:grant_lapsed", message: LAPSED_GRANT_MESSAGE });
}

/** For a door run: whether its open decision is an approval (left to the caller) or a refusal; null for other runs. */
export async function doorRunDecision(db: RuntimeDeps["db"], runId: string): Promise<"approved" | "refused" | null> {
  const [row] = await db
    .select({ trigger: agentRuns.trigger, status: approvals.status })
    .from(agentRuns)
    .leftJoin(approvals, and(eq(approvals.runId, agentRuns.id), isNull(approvals.resumedAt), inArray(approvals.status, ["approved", "rejected", "expired", "withdrawn"])))
    .where(eq(agentRuns.id, runId))
    .limit(1);
  if (!row || row.trigger !== "door") return null;
  return row.status === "approved" ? "approved" : "refused";
}
