/** Who has been told about requests (the outbox in lib/notifications), read for their cards. */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { notifications, users } from "../db/schema";

export async function notifiedOfMany(db: Db, workspaceId: string, approvalIds: string[]) {
  const byApproval = new Map<string, Awaited<ReturnType<typeof read>>>();
  if (approvalIds.length === 0) return byApproval;
  for (const row of await read(db, workspaceId, approvalIds)) {
    const list = byApproval.get(row.approvalId) ?? [];
    list.push(row);
    byApproval.set(row.approvalId, list);
  }
  return byApproval;
}

async function read(db: Db, workspaceId: string, approvalIds: string[]) {
  const rows = await db
    .select({
      approvalId: notifications.approvalId,
      userId: notifications.userId,
      name: sql<string>`coalesce(${users.name}, ${notifications.destination}, '')`,
      channel: notifications.channel,
      step: notifications.step,
      status: notifications.status,
      at: sql<Date>`coalesce(${notifications.sentAt}, ${notifications.createdAt})`,
      error: notifications.error,
    })
    .from(notifications)
    .leftJoin(users, eq(users.id, notifications.userId))
    .where(and(eq(notifications.workspaceId, workspaceId), inArray(notifications.approvalId, approvalIds)))
    .orderBy(asc(notifications.createdAt), asc(users.name));
  // A failed channel says why; one waiting to be tried again says what went wrong last.
  return rows.map((r) => ({ ...r, at: new Date(r.at).toISOString(), error: r.status === "failed" || r.status === "queued" ? r.error : null }));
}

/** The approvals with `notified` added: who was told about each, how, why and when. */
export async function withNotified<T extends { id: string }>(db: Db, workspaceId: string, list: T[]) {
  const notified = await notifiedOfMany(db, workspaceId, list.map((a) => a.id));
  return list.map((a) => ({ ...a, notified: (notified.get(a.id) ?? []).map(({ approvalId: _approvalId, ...n }) => n) }));
}
