/**
 * Reading the audit log: who did what to which object and when, filtered by person, action, object and time, a page
 * at a time (newest first), and whole ranges exported as CSV or JSON Lines. The log itself is append-only (a trigger
 * refuses every update and delete); nothing here changes it.
 */
import { and, desc, eq, gte, like, lt, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { auditLog, users } from "../db/schema";
import { rangeFields } from "../billing/range";

export const auditQuerySchema = z.object({
  ...rangeFields,
  /** A person's id: what they did. */
  actor: z.uuid().optional(),
  /** An action (`approval.approved`) or a family of them (`approval.`, `webhook`). */
  action: z
    .string()
    .trim()
    .regex(/^[a-z_.]{1,80}$/, "An action such as approval.approved, or the start of one such as approval.")
    .optional(),
  /** An object's type (`approval`) or type and id (`approval:<id>`). */
  object: z
    .string()
    .trim()
    .regex(/^[a-z_]{1,40}(:[A-Za-z0-9_-]{1,80})?$/, "An object's type such as approval, or a type and id such as approval:<id>")
    .optional(),
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type AuditQuery = z.infer<typeof auditQuerySchema>;

function where(workspaceId: string, q: Omit<AuditQuery, "limit" | "before">): SQL {
  const parts: (SQL | undefined)[] = [eq(auditLog.workspaceId, workspaceId)];
  if (q.from) parts.push(gte(auditLog.createdAt, q.from));
  if (q.to) parts.push(lt(auditLog.createdAt, q.to));
  if (q.actor) parts.push(and(eq(auditLog.actorKind, "user"), eq(auditLog.actorId, q.actor)));
  if (q.action) {
    const family = q.action.replace(/\.$/, "");
    parts.push(or(eq(auditLog.action, family), like(auditLog.action, `${family.replace(/[%_\\]/g, (c) => `\\${c}`)}.%`)));
  }
  if (q.object) {
    const [type, id] = q.object.split(":");
    parts.push(eq(auditLog.targetType, type!));
    if (id) parts.push(eq(auditLog.targetId, id));
  }
  return and(...parts)!;
}

const itemColumns = {
  id: auditLog.id,
  at: auditLog.createdAt,
  actorKind: auditLog.actorKind,
  actorId: auditLog.actorId,
  actorName: users.name,
  action: auditLog.action,
  targetType: auditLog.targetType,
  targetId: auditLog.targetId,
  detail: auditLog.detail,
};

type Row = { id: number; at: Date; actorKind: string; actorId: string | null; actorName: string | null; action: string; targetType: string | null; targetId: string | null; detail: unknown };

const item = (r: Row) => ({
  id: r.id,
  at: r.at,
  actor: { kind: r.actorKind, id: r.actorId, name: r.actorName },
  action: r.action,
  object: r.targetType && r.targetId ? { type: r.targetType, id: r.targetId } : null,
  details: (r.detail ?? {}) as Record<string, unknown>,
});

function select(db: Db) {
  return db
    .select(itemColumns)
    .from(auditLog)
    .leftJoin(users, and(eq(auditLog.actorKind, "user"), sql`${users.id}::text = ${auditLog.actorId}`));
}

/** One page of the log, newest first. */
export async function readAudit(db: Db, workspaceId: string, q: AuditQuery) {
  const rows = await select(db)
    .where(and(where(workspaceId, q), q.before ? lt(auditLog.id, q.before) : undefined))
    .orderBy(desc(auditLog.id))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  return { items: page.map(item), next: rows.length > q.limit ? page.at(-1)!.id : null };
}

export const auditExportSchema = auditQuerySchema.omit({ before: true, limit: true }).extend({ format: z.enum(["csv", "jsonl"]).default("csv") });

/** A CSV field: quoted when it holds a comma, a quote or a line break; a leading =, +, - or @ is defused for spreadsheets. */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * The whole range, oldest first, as CSV (a header row, the details as JSON in one column) or JSON Lines (one object per
 * line), read in pages of 1,000 so a year of log is never held at once.
 */
export async function* exportAudit(db: Db, workspaceId: string, q: z.infer<typeof auditExportSchema>): AsyncGenerator<string> {
  if (q.format === "csv") yield "id,at,actor_kind,actor_id,actor_name,action,object_type,object_id,details\r\n";
  let after = 0;
  for (;;) {
    const rows = await select(db)
      .where(and(where(workspaceId, q), sql`${auditLog.id} > ${after}`))
      .orderBy(auditLog.id)
      .limit(1000);
    if (rows.length === 0) return;
    let chunk = "";
    for (const r of rows) {
      const it = item(r);
      chunk +=
        q.format === "jsonl"
          ? `${JSON.stringify({ ...it, at: it.at.toISOString() })}\n`
          : `${[String(it.id), it.at.toISOString(), it.actor.kind, it.actor.id ?? "", it.actor.name ?? "", it.action, it.object?.type ?? "", it.object?.id ?? "", JSON.stringify(it.details)].map(csvField).join(",")}\r\n`;
    }
    yield chunk;
    after = rows.at(-1)!.id;
  }
}
