import { sql } from "drizzle-orm";
import { bigint, bigserial, index, integer, jsonb, pgEnum, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./common";
import { agents } from "./agents";
import { messages, sessions } from "./chat";
import { users, workspaces } from "./workspaces";

export const runStateEnum = pgEnum("run_state", ["running", "suspended", "succeeded", "failed", "cancelled"]);
export const runTriggerEnum = pgEnum("run_trigger", ["chat", "agent_message", "room_post", "mission", "door"]);

/** An untrusted source that reached a run, and the step that brought it in. */
export interface TaintSource {
  source: string;
  stepId: string | null;
}

/**
 * One agent turn: from a trigger until the model ends its turn, fails, or is
 * cancelled. `claimedBy` + `leaseExpiresAt` let exactly one process drive it,
 * and let a sweeper reap it when that process dies.
 */
export const agentRuns = pgTable(
  "agent_runs",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    agentId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    sessionId: uuid().references(() => sessions.id, { onDelete: "cascade" }),
    userId: uuid().references(() => users.id, { onDelete: "set null" }),
    trigger: runTriggerEnum().notNull().default("chat"),
    userMessageId: uuid().references(() => messages.id, { onDelete: "set null" }),
    /** For runs started by another agent or a room post: the thread or room, the message, and its text. */
    threadId: uuid(),
    roomId: uuid(),
    sourceMessageId: uuid(),
    inputText: text(),
    /** How many agent-to-agent hops led to this run (0 for a person's message). */
    hop: integer().notNull().default(0),
    /**
     * The person on whose behalf the run acts: whoever's chat message, room post, mission or door token began the
     * chain, carried across every agent hop. Four eyes compares approvers against this person.
     */
    onBehalfOfUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    /** Handles of the agents the chain came through before this run's agent, oldest first. */
    via: jsonb().$type<string[]>().notNull().default([]),
    /** The conversation that began the chain: a chat session or a room. */
    originSessionId: uuid().references(() => sessions.id, { onDelete: "set null" }),
    originRoomId: uuid(),
    /** For a mission's node: the mission run and the node (no foreign key: the mission module owns that link). */
    missionRunId: uuid(),
    missionNodeId: text(),
    replyMessageId: uuid().references(() => messages.id, { onDelete: "set null" }),
    model: text().notNull(),
    state: runStateEnum().notNull().default("running"),
    error: text(),
    errorCode: text(),
    lastSeq: integer().notNull().default(0),
    /** The complete loop state at suspension, enough to resume in any process. */
    checkpoint: jsonb(),
    taint: jsonb().$type<TaintSource[]>().notNull().default([]),
    claimedBy: text(),
    leaseExpiresAt: at(),
    inputTokens: bigint({ mode: "number" }).notNull().default(0),
    outputTokens: bigint({ mode: "number" }).notNull().default(0),
    /** Prompt tokens read from the provider's cache, and written to it (besides `inputTokens`, which are neither). */
    cacheReadTokens: bigint({ mode: "number" }).notNull().default(0),
    cacheWriteTokens: bigint({ mode: "number" }).notNull().default(0),
    credits: bigint({ mode: "number" }).notNull().default(0),
    /** Credits a manager let this run spend past its agent's cap per run, summed over the approvals to go on. */
    capRaisedCredits: bigint({ mode: "number" }).notNull().default(0),
    stepCount: integer().notNull().default(0),
    /** Model calls made so far; numbers each call's ledger row, so a resumed run never charges twice. */
    modelCalls: integer().notNull().default(0),
    firstTokenAt: at(),
    /** Set by a cancel request; the process driving the run stops at its next step. */
    cancelRequestedAt: at(),
    /** What the run's end says stopped it ("Stopped by Omar."), set with the request. */
    cancelReason: text(),
    /** Set with the terminal event: the journal accepts nothing after it. */
    journalClosedAt: at(),
    startedAt: at(),
    finishedAt: at(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("agent_runs_workspace_created_idx").on(t.workspaceId, t.createdAt),
    index("agent_runs_session_idx").on(t.sessionId, t.createdAt),
    // A chat has at most one run in flight or waiting for a reviewer (only chat runs have a session).
    uniqueIndex("agent_runs_one_active_per_chat").on(t.sessionId).where(sql`${t.state} in ('running', 'suspended')`),
    index("agent_runs_state_lease_idx").on(t.state, t.leaseExpiresAt),
    index("agent_runs_agent_created_idx").on(t.agentId, t.createdAt),
    index("agent_runs_thread_idx").on(t.threadId),
    index("agent_runs_mission_idx").on(t.missionRunId),
    // Usage reconciliation walks finished runs in order of when they finished.
    index("agent_runs_finished_idx").on(t.finishedAt),
  ],
);

/** The run journal: every event is written here before anyone sees it. */
export const runEvents = pgTable(
  "run_events",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    runId: uuid()
      .notNull()
      .references(() => agentRuns.id, { onDelete: "cascade" }),
    seq: integer().notNull(),
    type: text().notNull(),
    payload: jsonb().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("run_events_run_seq_key").on(t.runId, t.seq)],
);

export const stepStatusEnum = pgEnum("step_status", [
  "pending",
  "running",
  "succeeded",
  "failed",
  "awaiting_approval",
  "refused",
  "unconfirmed",
]);

/** One tool call of a run, as the model asked for it and as it ended. */
export const steps = pgTable(
  "steps",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    runId: uuid()
      .notNull()
      .references(() => agentRuns.id, { onDelete: "cascade" }),
    messageId: uuid().references(() => messages.id, { onDelete: "cascade" }),
    position: integer().notNull(),
    callId: text().notNull(),
    tool: text().notNull(),
    input: jsonb().notNull(),
    output: jsonb(),
    status: stepStatusEnum().notNull().default("pending"),
    error: text(),
    /** Sources of untrusted content this step's output carries (e.g. `web:example.com`). */
    taint: text().array().notNull().default([]),
    fingerprint: text(),
    startedAt: at(),
    finishedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("steps_run_call_key").on(t.runId, t.callId), index("steps_message_idx").on(t.messageId, t.position)],
);

export type AgentRun = typeof agentRuns.$inferSelect;
export type RunEvent = typeof runEvents.$inferSelect;
export type Step = typeof steps.$inferSelect;
