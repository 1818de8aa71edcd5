// Runs come into being here: a person's chat message, agents woken by a message or a room post, a mission's or a
// door's turns. None for a paused agent.
import crypto from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { rowsOf, type Db } from "../db/client";
import { agentRuns, agents, messages, sessions, usageRollupsHourly, workspaceBudgets, type AgentRun, type Role, type TaintSource } from "../db/schema";
import { budgetStopSentence, monthOf, raiseBudgetAlertsFor } from "../billing/budgets";
import { AppError, PG_UNIQUE_VIOLATION, pgConstraint, pgErrorCode } from "../errors";
import { assertCanWriteChat } from "../access/access";
import { withDbRetry } from "../db/retry";
import { logError } from "../log";
import { activeStates, lease } from "./shared";

/** The unique index that keeps a chat to one run in flight or waiting for a reviewer. */
const ONE_ACTIVE_RUN_PER_CHAT = "agent_runs_one_active_per_chat";

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
 * streams. The run starts with the taint of the chat's earlier runs: their
 * replies, which may quote a page they read, are in its prompt. The run is claimed by `owner` with a lease it must keep renewing.
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
  type Found = { chat_user_id: string | null; status: string | null; handle: string | null; agent_id: string | null; agent_over: boolean | null; workspace_over: boolean | null; created: number };
  const month = monthOf(now);
  let found: Found | undefined;
  try {
    [found] = rowsOf<Found>(
      await withDbRetry(() =>
        db.execute(sql`
          with chat as (
            select ${sessions.userId} as chat_user_id from ${sessions}
             where ${sessions.id} = ${input.sessionId} and ${sessions.workspaceId} = ${input.workspaceId}
          ), target as (
            select ${sessions.agentId} as agent_id, ${agents.model} as model, ${agents.status} as status, ${agents.handle} as handle,
                   ${agents.monthlyBudgetCredits} as agent_budget,
                   (select ${workspaceBudgets.monthlyBudgetCredits} from ${workspaceBudgets} where ${workspaceBudgets.workspaceId} = ${input.workspaceId}::uuid) as workspace_budget
              from ${sessions} join ${agents} on ${agents.id} = ${sessions.agentId}
             where ${sessions.id} = ${input.sessionId} and ${sessions.workspaceId} = ${input.workspaceId} and ${sessions.userId} = ${input.userId}::uuid
               for update of ${sessions} for share of ${agents}
          ), spent as (
            -- A spent monthly budget refuses the message here, so no run is made only to fail at its first model call.
            -- The month's spend is read only where a budget is set.
            select
              case when target.agent_budget is not null then (
                select coalesce(sum(${usageRollupsHourly.credits}), 0) from ${usageRollupsHourly}
                 where ${usageRollupsHourly.workspaceId} = ${input.workspaceId}::uuid and ${usageRollupsHourly.agentId} = target.agent_id
                   and ${usageRollupsHourly.bucket} >= ${month.start.toISOString()}::timestamptz and ${usageRollupsHourly.bucket} < ${month.end.toISOString()}::timestamptz
              ) >= target.agent_budget end as agent_over,
              case when target.workspace_budget is not null then (
                select coalesce(sum(${usageRollupsHourly.credits}), 0) from ${usageRollupsHourly}
                 where ${usageRollupsHourly.workspaceId} = ${input.workspaceId}::uuid
                   and ${usageRollupsHourly.bucket} >= ${month.start.toISOString()}::timestamptz and ${usageRollupsHourly.bucket} < ${month.end.toISOString()}::timestamptz
              ) >= target.workspace_budget end as workspace_over
              from target
          ), go as (
            select agent_id, model from target, spent
             where status <> 'paused' and agent_over is not true and workspace_over is not true
          ), earlier as (
            -- The chat's earlier turns are in this run's prompt, and so is whatever had reached them: each source once,
            -- where it first came in (the step stays: it is a step of this same chat).
            select coalesce(jsonb_agg(first.v order by first.at, first.ord), '[]'::jsonb) as taint from (
              select distinct on (e.v->>'source') e.v, r.created_at as at, e.ord
                from ${agentRuns} r cross join lateral jsonb_array_elements(r.taint) with ordinality as e(v, ord)
               where r.session_id = ${input.sessionId}::uuid and r.workspace_id = ${input.workspaceId}::uuid
               order by e.v->>'source', r.created_at, e.ord
            ) first
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
                                     user_message_id, reply_message_id, model, state, claimed_by, lease_expires_at, started_at, created_at, updated_at, taint)
            select ${runId}::uuid, ${input.workspaceId}::uuid, go.agent_id, ${input.sessionId}::uuid, ${input.userId}::uuid, ${input.userId}::uuid,
                   '[]'::jsonb, ${input.sessionId}::uuid, 'chat'::run_trigger, ${userMessageId}::uuid, ${replyMessageId}::uuid, go.model, 'running'::run_state,
                   ${input.owner}::text, ${lease()}, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz, earlier.taint
              from go, earlier
            returning id
          ), touched as (
            -- The chat's time, and its title from this message unless it already has one (an earlier message, a rename).
            update ${sessions} set updated_at = ${at}::timestamptz ${title}
             where id = ${input.sessionId} and exists (select 1 from go)
            returning id
          )
          -- Data-modifying parts run to completion whether or not this reads them.
          select chat.chat_user_id, target.status, target.handle, target.agent_id, spent.agent_over, spent.workspace_over, (select count(*) from run)::int as created
            from chat left join target on true left join spent on true`),
      ),
    );
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION && pgConstraint(error) === ONE_ACTIVE_RUN_PER_CHAT) throw await busyChat(db, input.sessionId);
    throw error;
  }
  if (!found) throw new AppError("not_found:session");
  assertCanWriteChat({ userId: input.userId, role: input.role ?? "member" }, { userId: found.chat_user_id });
  // The person's own chat, deleted while this waited for its lock.
  if (found.status === null || found.handle === null) throw new AppError("not_found:session");
  if (found.status === "paused") {
    throw new AppError("conflict:agent_paused", `${pausedMessage(found.handle)} Nothing was sent; ask a manager to resume it.`, { details: { agent: found.handle } });
  }
  if (found.agent_over || found.workspace_over) {
    // A refusal is when managers hear of the spent budget, if no model call has told them yet.
    // (An alert that cannot be written now is raised by the periodic job; the refusal stands either way.)
    await raiseBudgetAlertsFor(db, { workspaceId: input.workspaceId, agentId: found.agent_id! }, now).catch((error: unknown) =>
      logError("Could not raise the budget alerts of a refused message", error),
    );
    throw new AppError("unprocessable:budget_exceeded", budgetStopSentence(found.agent_over ? "agent" : "workspace", found.handle, month.label));
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
