import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { usageEvents, usageRollupsDaily, usageRollupsHourly } from "../db/schema";
import type { Usage } from "../models/types";
import { lookupPrice } from "./price-book";
import { creditsAtRates } from "./prices";

export type UsageSource =
  | { kind: "run"; runId: string }
  | { kind: "mission_run"; id: string; runId: string }
  | { kind: "judge" | "governor" | "door"; id: string };

export interface ChargeInput {
  workspaceId: string;
  agentId: string | null;
  source: UsageSource;
  model: string;
  usage: Usage;
  /** Same key, same call: a retry or a resume never charges twice. */
  idempotencyKey: string;
  /** When the call happened, if not now (a reconciliation row is dated when its run finished). */
  occurredAt?: Date;
}

export interface ChargeResult {
  charged: boolean;
  credits: number;
  unpriced: boolean;
}

/** Adds the inserted row's sums to the rollup row it collided with. */
function increments(t: typeof usageRollupsHourly | typeof usageRollupsDaily) {
  return {
    calls: sql`${t.calls} + 1`,
    inputTokens: sql`${t.inputTokens} + excluded.input_tokens`,
    outputTokens: sql`${t.outputTokens} + excluded.output_tokens`,
    cacheReadTokens: sql`${t.cacheReadTokens} + excluded.cache_read_tokens`,
    cacheWriteTokens: sql`${t.cacheWriteTokens} + excluded.cache_write_tokens`,
    credits: sql`${t.credits} + excluded.credits`,
    unpricedCalls: sql`${t.unpricedCalls} + excluded.unpriced_calls`,
  };
}

/**
 * Writes one ledger row for one model call, and adds it to the hourly and daily
 * rollups in the same transaction, so the rollups always equal the ledger. The price
 * is the workspace's (read inside the transaction, so a price change applies
 * to the next call exactly); a model without one is charged at the default
 * and flagged. A repeated idempotency key changes nothing.
 */
export async function chargeUsage(db: Db, input: ChargeInput): Promise<ChargeResult> {
  return db.transaction(async (tx) => {
    const price = await lookupPrice(tx, input.workspaceId, input.model);
    const credits = creditsAtRates(input.usage, price.rates);
    const [row] = await tx
      .insert(usageEvents)
      .values({
        workspaceId: input.workspaceId,
        agentId: input.agentId,
        // Rows of agent runs (a mission node's included) point at agent_runs; other sources name themselves.
        runId: "runId" in input.source ? input.source.runId : null,
        sourceKind: input.source.kind,
        sourceId: input.source.kind === "run" ? input.source.runId : input.source.id,
        model: input.model,
        inputTokens: input.usage.inputTokens,
        outputTokens: input.usage.outputTokens,
        cacheReadTokens: input.usage.cacheReadTokens,
        cacheWriteTokens: input.usage.cacheWriteTokens,
        credits,
        unpriced: price.priced ? 0 : 1,
        idempotencyKey: input.idempotencyKey,
        ...(input.occurredAt ? { createdAt: input.occurredAt } : {}),
      })
      .onConflictDoNothing({ target: usageEvents.idempotencyKey })
      .returning({ id: usageEvents.id, createdAt: usageEvents.createdAt });
    if (!row) return { charged: false, credits: 0, unpriced: !price.priced };
    // One atomic upsert per call and rollup: concurrent calls of the same hour (day), agent and model
    // serialise on the rollup row's lock, so none of their increments is lost.
    const sums = {
      workspaceId: input.workspaceId,
      agentId: input.agentId,
      model: input.model,
      sourceKind: input.source.kind,
      calls: 1,
      inputTokens: input.usage.inputTokens,
      outputTokens: input.usage.outputTokens,
      cacheReadTokens: input.usage.cacheReadTokens,
      cacheWriteTokens: input.usage.cacheWriteTokens,
      credits,
      unpricedCalls: price.priced ? 0 : 1,
    };
    const at = row.createdAt.toISOString();
    // Buckets are UTC hours and days whatever the server's time zone, so ranges on whole hours line up.
    await tx
      .insert(usageRollupsHourly)
      .values({ ...sums, bucket: sql`date_trunc('hour', ${at}::timestamptz, 'UTC')` })
      .onConflictDoUpdate({
        target: [usageRollupsHourly.workspaceId, usageRollupsHourly.bucket, usageRollupsHourly.agentId, usageRollupsHourly.model, usageRollupsHourly.sourceKind],
        set: increments(usageRollupsHourly),
      });
    await tx
      .insert(usageRollupsDaily)
      .values({ ...sums, day: sql`date_trunc('day', ${at}::timestamptz, 'UTC')` })
      .onConflictDoUpdate({
        target: [usageRollupsDaily.workspaceId, usageRollupsDaily.day, usageRollupsDaily.agentId, usageRollupsDaily.model, usageRollupsDaily.sourceKind],
        set: increments(usageRollupsDaily),
      });
    return { charged: true, credits, unpriced: !price.priced };
  });
}
