import { boolean, index, jsonb, pgEnum, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id } from "./common";
import { agents } from "./agents";
import { agentRuns, steps, type TaintSource } from "./runs";
import { users, workspaces } from "./workspaces";
import type { DecisionChannel } from "../../decision-channels";

export const approvalStatusEnum = pgEnum("approval_status", ["pending", "approved", "rejected", "expired", "withdrawn"]);


/** What the governor's judge said about an approval. */
export interface JudgeRecord {
  verdict: "allow" | "deny" | "no_answer";
  reason: string;
  model: string;
  mode: "judge_then_people" | "judge";
  /** Whether the verdict decided the approval (else it went on to people). */
  decided: boolean;
  failOpen: boolean;
  at: string;
}

/** A gated tool call waiting for (or holding) a human decision. */
export const approvals = pgTable(
  "approvals",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    runId: uuid()
      .notNull()
      .references(() => agentRuns.id, { onDelete: "cascade" }),
    stepId: uuid().references(() => steps.id, { onDelete: "set null" }),
    agentId: uuid()
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    requestedByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    /** The person behind the chain that led to this request (see `agent_runs.on_behalf_of_user_id`). */
    onBehalfOfUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    /** Handles of the agents the request came through before the asking agent, oldest first. */
    via: jsonb().$type<string[]>().notNull().default([]),
    category: text().notNull(),
    tool: text().notNull(),
    callId: text().notNull(),
    input: jsonb().notNull(),
    preview: jsonb().notNull(),
    fingerprint: text().notNull(),
    taintSources: jsonb().$type<TaintSource[]>().notNull().default([]),
    /**
     * Whether four eyes applied when the request was made. A decision needs
     * four eyes if this or the policy of the day says so: a later policy may
     * tighten a waiting request, never loosen it.
     */
    fourEyes: boolean().notNull().default(false),
    status: approvalStatusEnum().notNull().default("pending"),
    decidedByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    decidedAt: at(),
    decidedVia: text().$type<DecisionChannel>(),
    reason: text(),
    /**
     * The governor's judge on this request, when one was asked: its verdict
     * (or that it could not answer), model, reason, and whether that decided it.
     */
    judgeVerdict: jsonb().$type<JudgeRecord>(),
    /** Input as edited by the reviewer before approving; its fingerprint replaces the original. */
    editedInput: jsonb(),
    expiresAt: at().notNull(),
    resumedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [
    index("approvals_workspace_status_expiry_idx").on(t.workspaceId, t.status, t.expiresAt),
    index("approvals_run_idx").on(t.runId),
    index("approvals_status_expiry_idx").on(t.status, t.expiresAt),
  ],
);

/** Permission to run one exact call once; consumed before the effect happens. */
export const executionGrants = pgTable(
  "execution_grants",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    approvalId: uuid()
      .notNull()
      .references(() => approvals.id, { onDelete: "cascade" }),
    fingerprint: text().notNull(),
    consumedAt: at(),
    consumedBy: text(),
    expiresAt: at().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("execution_grants_approval_key").on(t.approvalId), index("execution_grants_fingerprint_idx").on(t.fingerprint)],
);

export type Approval = typeof approvals.$inferSelect;
export type ExecutionGrant = typeof executionGrants.$inferSelect;
