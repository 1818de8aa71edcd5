import { bigserial, index, jsonb, pgEnum, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./common";
import { workspaces } from "./workspaces";

export const actorKindEnum = pgEnum("actor_kind", ["user", "agent", "system", "governor"]);

/** Append-only: a trigger in the migrations refuses UPDATE and DELETE. */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigserial({ mode: "number" }).primaryKey(),
    workspaceId: uuid().references(() => workspaces.id),
    actorKind: actorKindEnum().notNull(),
    actorId: text(),
    action: text().notNull(),
    targetType: text(),
    targetId: text(),
    detail: jsonb().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [index("audit_log_workspace_created_idx").on(t.workspaceId, t.createdAt)],
);

export type AuditEntry = typeof auditLog.$inferSelect;
