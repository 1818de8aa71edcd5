import { auditLog } from "./db/schema";
import type { Db } from "./db/client";

export interface AuditInput {
  workspaceId: string | null;
  actor: { kind: "user" | "agent" | "system" | "governor"; id?: string | null };
  action: string;
  target?: { type: string; id: string };
  detail?: Record<string, unknown>;
}

/** Appends one entry to the audit log (never updated, never deleted). */
export async function recordAudit(db: Db, input: AuditInput): Promise<void> {
  await db.insert(auditLog).values({
    workspaceId: input.workspaceId,
    actorKind: input.actor.kind,
    actorId: input.actor.id ?? null,
    action: input.action,
    targetType: input.target?.type ?? null,
    targetId: input.target?.id ?? null,
    detail: input.detail ?? {},
  });
}
