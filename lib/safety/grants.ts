import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { executionGrants } from "../db/schema";
import { AppError } from "../errors";

export const GRANT_TTL_SECONDS = 60 * 60;

export async function mintGrant(tx: Db, input: { workspaceId: string; approvalId: string; fingerprint: string }): Promise<void> {
  await tx.insert(executionGrants).values({
    workspaceId: input.workspaceId,
    approvalId: input.approvalId,
    fingerprint: input.fingerprint,
    expiresAt: sql`now() + make_interval(secs => ${GRANT_TTL_SECONDS})`,
  });
}

/**
 * Uses the grant for exactly this call, in one statement: of any number of
 * racing consumers one gets the row, every other gets "grant unavailable".
 * Called before the effect, so a lost race means the effect never runs.
 */
export async function consumeGrant(db: Db, input: { approvalId: string; fingerprint: string; consumer: string }): Promise<void> {
  const [used] = await db
    .update(executionGrants)
    .set({ consumedAt: new Date(), consumedBy: input.consumer })
    .where(
      and(
        eq(executionGrants.approvalId, input.approvalId),
        eq(executionGrants.fingerprint, input.fingerprint),
        isNull(executionGrants.consumedAt),
        gt(executionGrants.expiresAt, sql`now()`),
      ),
    )
    .returning({ id: executionGrants.id });
  if (!used) throw new AppError("conflict:grant", "grant unavailable: it was already used, has expired, or was issued for a different call");
}
