import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { recordAudit } from "../audit";
import { rowsOf, type Db } from "../db/client";
import { auditLog, workspaces, type WorkspaceSettings } from "../db/schema";
import { AppError } from "../errors";
import { logError } from "../log";

/** How long the audit log keeps an entry: a year unless an owner chooses otherwise, never less than 30 days. */
export const AUDIT_RETENTION_DAYS = { default: 365, min: 30, max: 3650 } as const;

export const auditRetentionBodySchema = z.object({ days: z.number().int().min(AUDIT_RETENTION_DAYS.min).max(AUDIT_RETENTION_DAYS.max) });

export function auditRetentionDays(settings: Pick<WorkspaceSettings, "auditRetentionDays"> | undefined): number {
  return settings?.auditRetentionDays ?? AUDIT_RETENTION_DAYS.default;
}

/** Sets how many days the workspace's audit log keeps an entry; audited with the value before and after. */
export async function setAuditRetention(db: Db, workspaceId: string, actorId: string, days: number): Promise<{ days: number }> {
  return db.transaction(async (tx) => {
    const [ws] = await tx.select({ settings: workspaces.settings }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
    if (!ws) throw new AppError("not_found:workspace");
    const before = auditRetentionDays(ws.settings);
    if (before === days) return { days };
    await tx.update(workspaces).set({ settings: { ...ws.settings, auditRetentionDays: days } }).where(eq(workspaces.id, workspaceId));
    await recordAudit(tx, { workspaceId, actor: { kind: "user", id: actorId }, action: "audit.retention_set", target: { type: "workspace", id: workspaceId }, detail: { before, after: days } });
    return { days };
  });
}

/** Entries removed per workspace per transaction, so one pass over a large backlog never holds a long lock. */
const PRUNE_BATCH = 5000;

/**
 * Removes each workspace's entries older than its retention, and records how many went. The table refuses every
 * delete except inside a transaction that names the workspace and the cut-off first (see the migration's trigger), and
 * even then never an entry younger than 30 days. Returns how many entries were removed in all.
 */
export async function pruneAuditLogs(db: Db, now = new Date()): Promise<number> {
  const all = await db.select({ id: workspaces.id, settings: workspaces.settings }).from(workspaces);
  let removed = 0;
  for (const ws of all) {
    const days = auditRetentionDays(ws.settings);
    const before = new Date(now.getTime() - days * 86_400_000);
    let count: number;
    do {
      count = await db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('clawdeck.audit_prune_workspace', ${ws.id}, true), set_config('clawdeck.audit_prune_before', ${before.toISOString()}, true)`);
        const gone = await tx.execute(sql`
          delete from ${auditLog} where id in (
            select id from ${auditLog} where workspace_id = ${ws.id} and created_at < ${before.toISOString()}::timestamptz
            order by id limit ${PRUNE_BATCH})
          returning id`);
        const n = rowsOf(gone).length;
        if (n > 0) {
          await recordAudit(tx, { workspaceId: ws.id, actor: { kind: "system" }, action: "audit.pruned", target: { type: "workspace", id: ws.id }, detail: { removed: n, olderThan: before.toISOString(), retentionDays: days } });
        }
        return n;
      });
      removed += count;
    } while (count === PRUNE_BATCH);
  }
  return removed;
}

/** Prunes every `intervalMs` (an hour by default) in the background; returns a stop function. */
export function startAuditRetention(db: Db, intervalMs = 3_600_000): () => void {
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    pruneAuditLogs(db)
      .catch((error: unknown) => logError("The audit log retention pass failed", error))
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
