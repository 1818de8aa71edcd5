import { bigint, bigserial, boolean, index, integer, jsonb, pgEnum, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./common";
import { agents } from "./agents";
import { agentRuns } from "./runs";
import { users, workspaces } from "./workspaces";

export const missionRunStateEnum = pgEnum("mission_run_state", ["queued", "running", "succeeded", "failed", "cancelled"]);

/** One role of a crew, bound to an agent of the workspace. */
export interface CrewNode {
  id: string;
  role: string;
  agentId: string;
  instructions: string;
  /** Where the editor draws it. */
  position?: { x: number; y: number };
}

/** A crew: roles bound to agents, and the edges along which work flows between them. */
export interface MissionTopology {
  nodes: CrewNode[];
  edges: { from: string; to: string }[];
  /** Rounds of a review loop (maker ↔ checker), when the crew has one. */
  maxRounds?: number;
  /** A failed node's branch is skipped and the mission carries on, instead of failing. */
  continueOnFailure?: boolean;
  /** Most nodes of one mission running at once. */
  concurrency?: number;
}

/**
 * A crew (saved topology). The table keeps its first name, `missions`: a
 * mission run is one goal given to one crew.
 */
export const missions = pgTable(
  "missions",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** A suggested goal, shown when starting a mission. */
    goal: text(),
    topology: jsonb().$type<MissionTopology>().notNull(),
    createdByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("missions_workspace_idx").on(t.workspaceId, t.createdAt)],
);

/** One goal given to a crew: its topology as it stood at the start, its state, and its journal's sequence. */
export const missionRuns = pgTable(
  "mission_runs",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    missionId: uuid()
      .notNull()
      .references(() => missions.id, { onDelete: "cascade" }),
    goal: text().notNull().default(""),
    topology: jsonb().$type<MissionTopology>(),
    state: missionRunStateEnum().notNull().default("queued"),
    error: text(),
    /** The node that failed the mission, when one did. */
    failedNodeId: text(),
    result: jsonb(),
    credits: bigint({ mode: "number" }).notNull().default(0),
    /** What the mission may spend before a manager is asked to let it go on, in credits; null: no cap. */
    capCredits: bigint({ mode: "number" }),
    /** Credits managers let it spend past that cap, raised by one cap per approval to go on. */
    capRaisedCredits: bigint({ mode: "number" }).notNull().default(0),
    lastSeq: integer().notNull().default(0),
    startedByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    startedAt: at(),
    finishedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [index("mission_runs_mission_idx").on(t.missionId, t.createdAt), index("mission_runs_workspace_idx").on(t.workspaceId, t.createdAt), index("mission_runs_state_idx").on(t.state)],
);

export const missionNodeStateEnum = pgEnum("mission_node_state", ["waiting", "running", "succeeded", "failed", "cancelled", "skipped"]);

/**
 * Scheduling state of one turn of one node (a review loop gives its two nodes
 * one row per round). A row goes from waiting to running exactly once, in the
 * transaction that creates its run: that conditional update is the claim.
 */
export const missionNodes = pgTable(
  "mission_nodes",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    missionRunId: uuid()
      .notNull()
      .references(() => missionRuns.id, { onDelete: "cascade" }),
    nodeId: text().notNull(),
    round: integer().notNull().default(0),
    agentId: uuid().references(() => agents.id, { onDelete: "set null" }),
    state: missionNodeStateEnum().notNull().default("waiting"),
    /** Set while a waiting node's agent is paused. */
    held: boolean().notNull().default(false),
    runId: uuid().references(() => agentRuns.id, { onDelete: "set null" }),
    output: text(),
    error: text(),
    startedAt: at(),
    finishedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("mission_nodes_turn_key").on(t.missionRunId, t.nodeId, t.round), index("mission_nodes_run_idx").on(t.runId)],
);

/** The mission journal: every state change, numbered, read back by streams and replay. */
export const missionEvents = pgTable(
  "mission_events",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    missionRunId: uuid()
      .notNull()
      .references(() => missionRuns.id, { onDelete: "cascade" }),
    seq: integer().notNull(),
    type: text().notNull(),
    payload: jsonb().$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("mission_events_seq_key").on(t.missionRunId, t.seq)],
);

export type Mission = typeof missions.$inferSelect;
export type MissionRun = typeof missionRuns.$inferSelect;
export type MissionNode = typeof missionNodes.$inferSelect;
export type MissionEvent = typeof missionEvents.$inferSelect;

/** The judge's score of one mission's result, per criterion of the rubric. */
export interface ComparisonScore {
  missionRunId: string;
  criteria: { criterion: "correctness" | "completeness" | "clarity"; score: number; reason: string }[];
  /** When the judge gave no verdict for this side. */
  error?: string;
}

/** One goal run on two crews side by side, scored by the workspace's judge once both missions end. */
export const comparisons = pgTable(
  "comparisons",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    goal: text().notNull(),
    missionRunIds: jsonb().$type<[string, string]>().notNull(),
    /** Set once, when the judge has scored both sides (or failed to). */
    judgeModel: text(),
    scores: jsonb().$type<ComparisonScore[]>(),
    startedByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    judgedAt: at(),
  },
  (t) => [index("comparisons_workspace_idx").on(t.workspaceId, t.createdAt)],
);

export type Comparison = typeof comparisons.$inferSelect;
