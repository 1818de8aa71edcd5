import { auditLog } from "./db/schema";
import type { Db } from "./db/client";
import { actingKey } from "./acting-key";

export interface AuditInput {
  workspaceId: string | null;
  actor: { kind: "user" | "agent" | "system" | "governor"; id?: string | null };
  action: string;
  target?: { type: string; id: string };
  detail?: Record<string, unknown>;
}

/**
 * Appends one entry to the audit log (never updated, never deleted). A person acting through an API key is recorded
 * with the key (`detail.apiKey`), so the log says "by key 'nightly report' made by Rita".
 */
export async function recordAudit(db: Db, input: AuditInput): Promise<void> {
  const key = actingKey();
  const byKey = key && input.actor.kind === "user" && input.actor.id === key.makerId;
  await db.insert(auditLog).values({
    workspaceId: input.workspaceId,
    actorKind: input.actor.kind,
    actorId: input.actor.id ?? null,
    action: input.action,
    targetType: input.target?.type ?? null,
    targetId: input.target?.id ?? null,
    detail: byKey ? { ...input.detail, apiKey: { id: key.id, name: key.name } } : (input.detail ?? {}),
  });
}
