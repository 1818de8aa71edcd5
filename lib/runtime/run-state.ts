import crypto from "node:crypto";
import { and, asc, eq, inArray, isNull, lt, ne, sql } from "drizzle-orm";
import { rowsOf, type Database, type Db } from "../db/client";
import {
  agentRuns,
  agents,
  approvals,
  executionGrants,
  messages,
  runEvents,
  sessions,
  steps,
  workspaces,
  type AgentRun,
  type Approval,
  type Role,
  type TaintSource,
} from "../db/schema";
import { AppError, PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from "../errors";
import { assertCanWriteSession } from "../access/access";
import { cleanDeep } from "../text";
import { recordFeed, recordRunFinished } from "../feed/feed";
import { approvalsTopic, fourEyesApplies } from "../safety/approvals";
import type { ApprovalCategory } from "../safety/policy";
import { workspacePolicy } from "../safety/policy";
import { createToolRegistry, type ToolRegistry } from "../tools/registry";
import type { ToolPreview } from "../tools/types";
import type { EventBus } from "./bus";
import { withDbRetry } from "./db-retry";
import { parseRunEvent, type TerminalEventInput } from "./events";
import { insertRunEvents, LEASE_SECONDS, notifyRun, runTopic } from "./journal";
import { journalWriterFor } from "./journal-writer";
import { journalText } from "./runs";
import type { LoopState } from "./types";

/**
 * The one owner of run state. Every write of `agent_runs` and `steps` (and
 * of the approvals a run asks for or abandons) goes through this module, so
 * the lifecycle holds by construction:
 *
 * - a run is created only for an agent that is not paused, and carries the
 *   person on whose behalf it acts and the agents it came through;
 * - a paused agent's suspended run is not resumed, nor its orphan carried
 *   on, until the agent is resumed: a decision on it is kept meanwhile;
 * - only the process holding the claim writes while the run is running;
 * - a terminal event closes the journal (`journal_closed_at`): nothing is
 *   journaled after it, whoever tries;
 * - ending a run from outside withdraws its pending approvals, so no decision
 *   can mint a grant for a run that stopped.
 *
 * Each function is one transaction (or one conditional statement) and is
 * retried on transient database errors.
 */

export const activeStates = ["queued", "running"] as const;
/** The unique index that keeps a chat to one run in flight or waiting for a reviewer. */
const ONE_ACTIVE_RUN_PER_CHAT = "agent_runs_one_active_per_chat";
const lease = () => sql`now() + make_interval(secs => ${LEASE_SECONDS})`;

export const pausedMessage = (handle: string) => `@${handle} is paused.`;

/** The person behind a chain and the way it came, carried from run to run. */
export interface Chain {
  onBehalfOfUserId: string | null;
  via: string[];
  originSessionId: string | null;
  originRoomId: string | null;
}

export function chainOf(run: Pick<AgentRun, "onBehalfOfUserId" | "via" | "originSessionId" | "originRoomId">): Chain {
  return { onBehalfOfUserId: run.onBehalfOfUserId, via: [...run.via], originSessionId: run.originSessionId, originRoomId: run.originRoomId };
}

/**
 * Stores the person's message, the (empty) reply row and the run, all at
 * once: the reply exists from the start so steps attach to it while it
 * streams. The run is claimed by `owner` with a lease it must keep renewing.
 * A paused agent gets no run: `409 conflict:agent_paused`.
 */
export async function createChatRun(
  db: Db,
  input: {
    workspaceId: string;
    sessionId: string;
    userId: string;
    /** The person's role in the workspace: what a refusal says when they are not the chat's (least privilege if unsaid). */
    role?: Role;
    text: string;
    owner: string;
    title?: string;
  },
): Promise<{ runId: string; userMessageId: string; replyMessageId: string }> {
  // The ids are chosen here, so that the two messages and the run that point at each other are written together.
  const runId = crypto.randomUUID();
  const userMessageId = crypto.randomUUID();
  const replyMessageId = crypto.randomUUID();
  const now = new Date();
  const at = now.toISOString();
  const title = input.title === undefined ? sql`` : sql`, title = case when title_chosen then title else ${input.title} end, title_chosen = true`;
  // One statement, atomic on its own. It reads whose chat it is; only for the chat's person is the chat locked and its
  // agent shared (a pause committed before wins; one committed after waits for this run), so anyone else is refused
  // (by the access rule, from the chat's person the statement returns) without holding either. Nothing is written for
  // a paused agent. A chat has at most one run in flight or waiting for a reviewer: the unique index
  // `agent_runs_one_active_per_chat` refuses a second one even when two messages race, which a check inside the same
  // statement could not (it reads from before the lock was granted).
  type Found = { chat_user_id: string | null; status: string | null; handle: string | null; created: number };
  let found: Found | undefined;
  try {
    [found] = rowsOf<Found>(
      await withDbRetry(() =>
        db.execute(sql`
          with chat as (
            select ${sessions.userId} as chat_user_id from ${sessions}
             where ${sessions.id} = ${input.sessionId} and ${sessions.workspaceId} = ${input.workspaceId}
          ), target as (
            select ${sessions.agentId} as agent_id, ${agents.model} as model, ${agents.status} as status, ${agents.handle} as handle
              from ${sessions} join ${agents} on ${agents.id} = ${sessions.agentId}
             where ${sessions.id} = ${input.sessionId} and ${sessions.workspaceId} = ${input.workspaceId} and ${sessions.userId} = ${input.userId}::uuid
               for update of ${sessions} for share of ${agents}
          ), go as (
            select agent_id, model from target where status <> 'paused'
          ), written as (
            insert into ${messages} (id, workspace_id, session_id, role, content, run_id, user_id, created_at, updated_at)
            select m.id, ${input.workspaceId}::uuid, ${input.sessionId}::uuid, m.role::message_role, m.content, ${runId}::uuid, m.user_id, m.created_at, ${at}::timestamptz
              from go, (values
                (${userMessageId}::uuid, 'user', ${input.text}::text, ${input.userId}::uuid, ${at}::timestamptz),
                (${replyMessageId}::uuid, 'assistant', ''::text, null::uuid, ${new Date(now.getTime() + 1).toISOString()}::timestamptz)
              ) as m(id, role, content, user_id, created_at)
            returning id
          ), run as (
            insert into ${agentRuns} (id, workspace_id, agent_id, session_id, user_id, on_behalf_of_user_id, via, origin_session_id, trigger,
                                     user_message_id, reply_message_id, model, state, claimed_by, lease_expires_at, started_at, created_at, updated_at)
            select ${runId}::uuid, ${input.workspaceId}::uuid, go.agent_id, ${input.sessionId}::uuid, ${input.userId}::uuid, ${input.userId}::uuid,
                   '[]'::jsonb, ${input.sessionId}::uuid, 'chat'::run_trigger, ${userMessageId}::uuid, ${replyMessageId}::uuid, go.model, 'running'::run_state,
                   ${input.owner}::text, ${lease()}, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz
              from go
            returning id
          ), touched as (
            -- The chat's time, and its title from this message unless it already has one (an earlier message, a rename).
            update ${sessions} set updated_at = ${at}::timestamptz ${title}
             where id = ${input.sessionId} and exists (select 1 from go)
            returning id
          )
          -- Data-modifying parts run to completion whether or not this reads them.
          select chat.chat_user_id, target.status, target.handle, (select count(*) from run)::int as created from chat left join target on true`),
      ),
    );
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION && pgConstraint(error) === ONE_ACTIVE_RUN_PER_CHAT) throw await busyChat(db, input.sessionId);
    throw error;
  }
  if (!found) throw new AppError("not_found:session");
  assertCanWriteSession({ userId: input.userId, role: input.role ?? "member" }, { userId: found.chat_user_id });
  // The person's own chat, deleted while this waited for its lock.
  if (found.status === null || found.handle === null) throw new AppError("not_found:session");
  if (found.status === "paused") {
    throw new AppError("conflict:agent_paused", `${pausedMessage(found.handle)} Nothing was sent; ask a manager to resume it.`, { details: { agent: found.handle } });
  }
  if (found.created !== 1) throw new AppError("internal:run", "The run could not be created.");
  return { runId, userMessageId, replyMessageId };
}

/** The refusal of a message to a chat whose agent is still answering (or waiting for a reviewer). */
async function busyChat(db: Db, sessionId: string): Promise<AppError> {
  const [busy] = await db
    .select({ id: agentRuns.id })
    .from(agentRuns)
    .where(and(eq(agentRuns.sessionId, sessionId), inArray(agentRuns.state, [...activeStates, "suspended"])))
    .limit(1);
  return new AppError("conflict:run", "The agent is still answering. Wait for it, or stop it first.", { details: busy ? { runId: busy.id } : undefined });
}

export interface WakeInput {
  workspaceId: string;
  agentIds: string[];
  trigger: "agent_message" | "room_post" | "mission" | "door";
  threadId: string | null;
  roomId: string | null;
  sourceMessageId: string | null;
  inputText: string;
  hop: number;
  chain: Chain;
  owner: string;
  /** Untrusted sources the run starts with (the agents that handed it content, and what had reached them). */
  taint?: TaintSource[];
  /** The mission run and node this turn belongs to. */
  mission?: { runId: string; nodeId: string };
}

/** One turn of `createTurnRuns`: an agent, what it is handed, and where the turn belongs. */
export type Turn = Pick<WakeInput, "inputText" | "taint" | "mission"> & {
  agentId: string;
  /** The agents this turn's input came through, when they differ from the chain's. */
  via?: string[];
};

/**
 * Gives each agent a turn on a message (another agent's, a room post, a
 * mission step, a door): one run per agent, claimed by `owner`. Paused
 * agents get no run; they are returned so the caller can say so.
 */
export async function createWakeRuns(db: Db, input: WakeInput): Promise<{ runIds: string[]; paused: { id: string; handle: string }[] }> {
  const { agentIds, inputText, taint, mission, ...common } = input;
  const { runIds, paused } = await createTurnRuns(db, common, agentIds.map((agentId) => ({ agentId, inputText, taint, mission })));
  return { runIds: runIds.filter((id): id is string => id !== null), paused };
}

/** A turn's agent as `insertTurnRuns` needs it. */
export type TurnAgent = { id: string; handle: string; model: string; status: string };

/**
 * Reads the agents of some turns, locked against a pause: a pause committed
 * before this read wins; one committed after waits for the transaction that
 * creates their runs.
 */
export function lockTurnAgents(tx: Db, workspaceId: string, agentIds: string[]): Promise<TurnAgent[]> {
  return tx
    .select({ id: agents.id, handle: agents.handle, model: agents.model, status: agents.status })
    .from(agents)
    .where(and(eq(agents.workspaceId, workspaceId), inArray(agents.id, [...new Set(agentIds)])))
    .for("share");
}

/**
 * Creates the runs of several turns at once, each with its own input (a
 * mission's ready nodes): one read of the agents, one insert. `runIds` is in
 * the turns' order, null where the turn's agent is paused (or gone).
 */
export async function createTurnRuns(
  db: Db,
  common: Omit<WakeInput, "agentIds" | keyof Turn>,
  turns: Turn[],
): Promise<{ runIds: (string | null)[]; paused: { id: string; handle: string }[] }> {
  if (turns.length === 0) return { runIds: [], paused: [] };
  return withDbRetry(() =>
    db.transaction(async (tx) => insertTurnRuns(tx, common, turns, await lockTurnAgents(tx, common.workspaceId, turns.map((t) => t.agentId)))),
  );
}

/**
 * Inserts the runs of the turns whose agent (read by `lockTurnAgents` in the
 * same transaction, which the caller holds) is active, claimed by `owner`.
 */
export async function insertTurnRuns(
  tx: Db,
  common: Omit<WakeInput, "agentIds" | keyof Turn>,
  turns: Turn[],
  found: TurnAgent[],
): Promise<{ runIds: (string | null)[]; paused: { id: string; handle: string }[] }> {
  const byId = new Map(found.map((a) => [a.id, a]));
  const paused = found.filter((a) => a.status === "paused").map((a) => ({ id: a.id, handle: a.handle }));
  const active = turns.flatMap((turn, i) => {
    const agent = byId.get(turn.agentId);
    return agent?.status === "active" ? [{ i, turn, agent }] : [];
  });
  const runIds: (string | null)[] = turns.map(() => null);
  if (active.length === 0) return { runIds, paused };
  // The ids are made here, so each turn knows its run without relying on the order of RETURNING.
  for (const { i } of active) runIds[i] = crypto.randomUUID();
  await tx.insert(agentRuns).values(
    active.map(({ i, turn, agent }) => ({
      id: runIds[i]!,
      workspaceId: common.workspaceId,
      agentId: agent.id,
      trigger: common.trigger,
      threadId: common.threadId,
      roomId: common.roomId,
      sourceMessageId: common.sourceMessageId,
      inputText: turn.inputText,
      hop: common.hop,
      onBehalfOfUserId: common.chain.onBehalfOfUserId,
      via: turn.via ?? common.chain.via,
      originSessionId: common.chain.originSessionId,
      originRoomId: common.chain.originRoomId,
      taint: turn.taint ?? [],
      missionRunId: turn.mission?.runId ?? null,
      missionNodeId: turn.mission?.nodeId ?? null,
      model: agent.model,
      state: "running" as const,
      claimedBy: common.owner,
      leaseExpiresAt: lease(),
      startedAt: new Date(),
    })),
  );
  return { runIds, paused };
}

/** Renews our lease; tells whether the run was cancelled or taken from us meanwhile. */
export async function renewLease(db: Db, runId: string, owner: string): Promise<"ok" | "cancel" | "lost"> {
  try {
    const [row] = await withDbRetry(() =>
      db
        .update(agentRuns)
        .set({ leaseExpiresAt: lease() })
        .where(and(eq(agentRuns.id, runId), eq(agentRuns.claimedBy, owner), eq(agentRuns.state, "running")))
        .returning({ cancelRequestedAt: agentRuns.cancelRequestedAt }),
    );
    if (!row) return "lost";
    return row.cancelRequestedAt ? "cancel" : "ok";
  } catch {
    return "ok";
  }
}

/** Adds one model call's usage to the run's totals. */
export async function addRunUsage(db: Db, runId: string, usage: { inputTokens: number; outputTokens: number; credits: number; callNumber: number }): Promise<void> {
  await withDbRetry(() =>
    db
      .update(agentRuns)
      .set({
        inputTokens: sql`${agentRuns.inputTokens} + ${usage.inputTokens}`,
        outputTokens: sql`${agentRuns.outputTokens} + ${usage.outputTokens}`,
        credits: sql`${agentRuns.credits} + ${usage.credits}`,
        modelCalls: usage.callNumber + 1,
      })
      .where(eq(agentRuns.id, runId)),
  );
}

/** A new step of the run, running, at `position`; the run's step count follows. */
export async function recordStepStart(
  db: Db,
  run: AgentRun,
  step: { position: number; callId: string; tool: string; input: Record<string, unknown> },
): Promise<string> {
  return withDbRetry(() =>
    db.transaction(async (tx) => {
      const [row] = await tx
        .insert(steps)
        .values({
          workspaceId: run.workspaceId,
          runId: run.id,
          messageId: run.replyMessageId,
          position: step.position,
          callId: step.callId,
          tool: step.tool,
          input: step.input,
          status: "running",
          startedAt: new Date(),
        })
        .returning({ id: steps.id });
      await tx.update(agentRuns).set({ stepCount: step.position }).where(eq(agentRuns.id, run.id));
      return row!.id;
    }),
  );
}

export type StepEnd = { status: "succeeded" | "failed" | "refused" | "unconfirmed"; output?: unknown; error?: string | null; taint?: string[] };

export async function recordStepFinish(db: Db, stepId: string, input: Record<string, unknown>, end: StepEnd): Promise<void> {
  await withDbRetry(() =>
    db
      .update(steps)
      .set({ status: end.status, input, output: end.output ?? null, error: end.error ?? null, taint: end.taint ?? [], finishedAt: new Date() })
      .where(eq(steps.id, stepId)),
  );
}

export async function recordTaint(db: Db, runId: string, taint: TaintSource[]): Promise<void> {
  await withDbRetry(() => db.update(agentRuns).set({ taint }).where(eq(agentRuns.id, runId)));
}

export interface NewApproval {
  stepId: string;
  callId: string;
  tool: string;
  input: Record<string, unknown>;
  category: ApprovalCategory;
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
          fourEyes: fourEyesApplies(policy.fourEyesCategories, pending.category, effects),
          expiresAt: sql`now() + make_interval(secs => ${ttl})`,
        })
        .returning({ id: approvals.id, expiresAt: approvals.expiresAt });
      await tx.update(steps).set({ status: "awaiting_approval", fingerprint: pending.fingerprint }).where(eq(steps.id, pending.stepId));
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
        .where(and(eq(approvals.runId, runId), inArray(approvals.status, ["approved", "rejected", "expired"]), isNull(approvals.resumedAt)))
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

/** The steps a crashed driver left behind, with whether their effect was dispatched. */
export async function stepsOfRun(db: Db, runId: string) {
  return db
    .select({
      id: steps.id,
      callId: steps.callId,
      tool: steps.tool,
      status: steps.status,
      output: steps.output,
      error: steps.error,
      taint: steps.taint,
      input: steps.input,
      dispatched: sql<boolean>`exists (select 1 from run_events e where e.run_id = "steps"."run_id" and e.type = 'dispatch_started' and e.payload->>'stepId' = "steps"."id"::text)`,
    })
    .from(steps)
    .where(eq(steps.runId, runId))
    .orderBy(asc(steps.position));
}

/** Whether the grant of an approval was used: the effect it allowed may have happened. */
export async function grantConsumed(db: Db, approvalId: string): Promise<boolean> {
  const [row] = await db.select({ consumedAt: executionGrants.consumedAt }).from(executionGrants).where(eq(executionGrants.approvalId, approvalId));
  return !!row?.consumedAt;
}

/** Ends the run we drive, once, with its terminal event; false when it was no longer ours to end. */
export async function finishRun(
  db: Db,
  bus: EventBus,
  input: {
    runId: string;
    owner: string;
    state: "succeeded" | "failed" | "cancelled";
    replyText: string;
    code?: string;
    message?: string;
    event: TerminalEventInput;
    /**
     * Called once the end is committed (a mission's next turn need not wait for anything else). On PostgreSQL the
     * notification goes out with the commit, so subscribers may hear of the end first; they read the journal either way.
     */
    committed?: () => void;
  },
): Promise<boolean> {
  const event = { type: input.event.type, payload: cleanDeep(input.event.payload) };
  // The process's journal writer hands the terminal event to the run's followers here from memory; the notification
  // names it, so they skip it and only other processes read the row.
  const writer = journalWriterFor(db as Database, bus);
  const at = new Date().toISOString();
  // One statement: the run ended and unclaimed, its reply kept, the terminal event written at the next sequence number
  // (closing the journal), and on PostgreSQL the notification sent, delivered at commit.
  const result = await withDbRetry(() =>
    db.execute(sql`
      with ended as (
        update ${agentRuns} as r
        set state = ${input.state}::run_state, error = ${input.message ?? null}::text, error_code = ${input.code ?? null}::text,
            claimed_by = null, lease_expires_at = null, checkpoint = null, finished_at = ${at}::timestamptz,
            last_seq = r.last_seq + 1, journal_closed_at = now(), updated_at = now()
        where r.id = ${input.runId} and r.claimed_by = ${input.owner} and r.state = 'running' and r.journal_closed_at is null
        returning r.id, r.last_seq, r.reply_message_id
      ),
      reply as (
        update ${messages} set content = ${input.replyText}::text, updated_at = now() where id = (select reply_message_id from ended)
      ),
      closed as (
        insert into ${runEvents} (run_id, seq, type, payload, created_at)
        select id, last_seq, ${event.type}::text, ${JSON.stringify(event.payload)}::jsonb, ${at}::timestamptz from ended
      )${bus.channel ? sql`,
      notice as (
        select pg_notify(${bus.channel}, json_build_object('t', ${runTopic(input.runId)}::text,
          'm', json_build_object('runId', id, 'seq', last_seq, 'o', ${writer.origin}::text))::text) from ended
      )
      select last_seq, (select count(*) from notice) as notices from ended` : sql`
      select last_seq from ended`}
    `),
  );
  const [row] = rowsOf<{ last_seq: number }>(result);
  if (!row) return false;
  const seq = Number(row.last_seq);
  // What a reader of the row gets: the stored JSON through the same parser.
  const terminal = parseRunEvent(event.type, seq, at, JSON.parse(JSON.stringify(event.payload)));
  if (terminal) writer.handOver(input.runId, [terminal]);
  input.committed?.();
  if (!bus.channel) await notifyRun(bus, input.runId, seq, terminal ? writer.origin : undefined);
  return true;
}

/** Asks the driver of a running run to stop at its next step. */
export async function requestCancel(db: Db, runId: string): Promise<boolean> {
  const [marked] = await withDbRetry(() =>
    db
      .update(agentRuns)
      .set({ cancelRequestedAt: new Date() })
      .where(and(eq(agentRuns.id, runId), eq(agentRuns.state, "running")))
      .returning({ id: agentRuns.id }),
  );
  return !!marked;
}

/**
 * Marks a run failed (or cancelled) from outside its driver, once: the
 * conditional update picks the run only while it is still in one of `from`.
 * In the same transaction its pending approvals are withdrawn (a later
 * decision gets `409 conflict:approval`) and the terminal event closes the
 * journal.
 */
export async function endRunFromOutside(
  db: Db,
  bus: EventBus,
  runId: string,
  options: { from: readonly ("queued" | "running" | "suspended")[]; to: "failed" | "cancelled"; code: string; message: string; staleOnly?: boolean },
): Promise<boolean> {
  const ended = await withDbRetry(() =>
    db.transaction(async (tx) => {
      const [run] = await tx
        .update(agentRuns)
        .set({
          state: options.to,
          error: options.to === "failed" ? options.message : null,
          errorCode: options.to === "failed" ? options.code : null,
          claimedBy: null,
          leaseExpiresAt: null,
          finishedAt: new Date(),
        })
        .where(
          and(
            eq(agentRuns.id, runId),
            inArray(agentRuns.state, [...options.from]),
            // A run whose journal is closed has ended: whatever its row says, it is not ended twice.
            isNull(agentRuns.journalClosedAt),
            options.staleOnly ? lt(agentRuns.leaseExpiresAt, sql`now()`) : undefined,
          ),
        )
        .returning();
      if (!run) return null;
      const withdrawn = await tx
        .update(approvals)
        .set({ status: "withdrawn", decidedAt: new Date(), reason: options.to === "cancelled" ? "The run was stopped before a decision." : `The run ended: ${options.message}` })
        .where(and(eq(approvals.runId, runId), eq(approvals.status, "pending")))
        .returning({ id: approvals.id, tool: approvals.tool });
      // Keep the partial reply the journal holds, so the person sees what was said before it stopped.
      if (run.replyMessageId) await tx.update(messages).set({ content: await journalText(tx, runId) }).where(eq(messages.id, run.replyMessageId));
      const seq = await insertRunEvents(tx, runId, null, [
        options.to === "failed"
          ? { type: "run_failed", payload: { code: options.code, message: options.message } }
          : { type: "run_cancelled", payload: { reason: options.message } },
      ]);
      return { run, seq, withdrawn };
    }),
  );
  if (!ended) return false;
  await notifyRun(bus, runId, ended.seq);
  for (const w of ended.withdrawn) await bus.publish(approvalsTopic(ended.run.workspaceId), { approvalId: w.id, status: "withdrawn" });
  if (ended.withdrawn.length > 0) {
    await recordFeed(
      db,
      bus,
      ended.withdrawn.map((w) => ({
        workspaceId: ended.run.workspaceId,
        kind: "approval_decided" as const,
        agentId: ended.run.agentId,
        runId,
        approvalId: w.id,
        payload: { status: "withdrawn", tool: w.tool, reason: "The run was stopped." },
      })),
    );
  }
  const [agent] = await db.select({ handle: agents.handle }).from(agents).where(eq(agents.id, ended.run.agentId));
  await recordRunFinished({ db, bus }, ended.run, agent?.handle, options.to, options.to === "failed" ? { code: options.code, message: options.message } : undefined);
  return true;
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
        ne(approvals.status, "pending"),
        ne(approvals.status, "withdrawn"),
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
