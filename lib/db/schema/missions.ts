import { bigint, index, jsonb, pgEnum, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { at, createdAt, id, updatedAt } from "./common";
import { users, workspaces } from "./workspaces";

export const missionRunStateEnum = pgEnum("mission_run_state", ["queued", "running", "succeeded", "failed", "cancelled"]);

/** A crew: roles bound to agents, and the edges along which work flows between them. */
export interface MissionTopology {
  nodes: { id: string; role: string; agentId: string }[];
  edges: { from: string; to: string }[];
}

export const missions = pgTable(
  "missions",
  {
    id: id(),
    workspaceId: uuid()
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text().notNull(),
    goal: text().notNull(),
    topology: jsonb().$type<MissionTopology>().notNull(),
    createdByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("missions_workspace_idx").on(t.workspaceId, t.createdAt)],
);

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
    state: missionRunStateEnum().notNull().default("queued"),
    error: text(),
    result: jsonb(),
    credits: bigint({ mode: "number" }).notNull().default(0),
    startedByUserId: uuid().references(() => users.id, { onDelete: "set null" }),
    startedAt: at(),
    finishedAt: at(),
    createdAt: createdAt(),
  },
  (t) => [index("mission_runs_mission_idx").on(t.missionId, t.createdAt)],
);

export type Mission = typeof missions.$inferSelect;
export type MissionRun = typeof missionRuns.$inferSelect;
