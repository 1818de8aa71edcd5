/** How each person decides requests over a range: how many, how fast (median), and what share they approved. */
import { and, desc, eq, gte, inArray, isNotNull, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { approvals, users } from "../db/schema";
import { DAY_MS, rangeFields, resolveRange } from "./range";

export const reviewsQuerySchema = z.object(rangeFields).transform((q) => resolveRange(q, 30 * DAY_MS));

export async function reviewsByPerson(db: Db, workspaceId: string, range: { from: Date; to: Date }) {
  const rows = await db
    .select({
      userId: approvals.decidedByUserId,
      name: users.name,
      decided: sql<number>`count(*)::int`.mapWith(Number),
      approved: sql<number>`count(*) filter (where ${approvals.status} = 'approved')::int`.mapWith(Number),
      medianMs: sql<number>`percentile_cont(0.5) within group (order by extract(epoch from ${approvals.decidedAt} - ${approvals.createdAt}) * 1000)`.mapWith(Number),
    })
    .from(approvals)
    .innerJoin(users, eq(users.id, approvals.decidedByUserId))
    .where(
      and(
        eq(approvals.workspaceId, workspaceId),
        inArray(approvals.status, ["approved", "rejected"]),
        isNotNull(approvals.decidedByUserId),
        gte(approvals.decidedAt, range.from),
        lt(approvals.decidedAt, range.to),
      ),
    )
    .groupBy(approvals.decidedByUserId, users.name)
    .orderBy(desc(sql`count(*)`), users.name);
  return {
    range: { from: range.from.toISOString(), to: range.to.toISOString() },
    reviewers: rows.map((r) => ({ userId: r.userId!, name: r.name, decided: r.decided, approved: r.approved, medianMs: Math.round(r.medianMs) })),
  };
}
