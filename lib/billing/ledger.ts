import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { usageEvents, usageRollupsHourly } from "../db/schema";
import type { Usage } from "../models/types";
import { creditsFor, priceFor } from "./prices";

export type UsageSource =
  | { kind: "run"; runId: string }
  | { kind: "mission_run" | "judge" | "governor" | "door"; id: string };

export interface ChargeInput {
  workspaceId: string;
  agentId: string | null;
  source: UsageSource;
  model: string;
  usage: Usage;
  /** Same key, same call: a retry or a resume never charges twice. */
  idempotencyKey: string;
}

export interface ChargeResult {
  charged: boolean;
  credits: number;
  unpriced: boolean;
}

/**
 * Writes one ledger row for one model call, and adds it to the hourly rollup
 * in the same transaction, so the rollups always equal the ledger. A repeated
 * idempotency key changes nothing.
 */
export async function chargeUsage(db: Db, input: ChargeInput): Promise<ChargeResult> {
  const { price, priced } = priceFor(input.model);
  const credits = creditsFor(input.usage, price);
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(usageEvents)
      .values({
        workspaceId: input.workspaceId,
        agentId: input.agentId,
        // Only run-sourced rows point at agent_runs; other sources name themselves.
        runId: input.source.kind === "run" ? input.source.runId : null,
        sourceKind: input.source.kind,
        sourceId: input.source.kind === "run" ? input.source.runId : input.source.id,
        model: input.model,
        inputTokens: input.usage.inputTokens,
        outputTokens: input.usage.outputTokens,
        cacheReadTokens: input.usage.cacheReadTokens,
        cacheWriteTokens: input.usage.cacheWriteTokens,
        credits,
        unpriced: priced ? 0 : 1,
        idempotencyKey: input.idempotencyKey,
      })
      .onConflictDoNothing({ target: usageEvents.idempotencyKey })
      .returning({ id: usageEvents.id, createdAt: usageEvents.createdAt });
    if (!row) return { charged: false, credits: 0, unpriced: !priced };
    await tx
      .insert(usageRollupsHourly)
      .values({
        workspaceId: input.workspaceId,
        bucket: sql`date_trunc('hour', ${row.createdAt.toISOString()}::timestamptz)`,
        agentId: input.agentId,
        model: input.model,
        sourceKind: input.source.kind,
        calls: 1,
        inputTokens: input.usage.inputTokens,
        outputTokens: input.usage.outputTokens,
        cacheReadTokens: input.usage.cacheReadTokens,
        cacheWriteTokens: input.usage.cacheWriteTokens,
        credits,
      })
      .onConflictDoUpdate({
        target: [usageRollupsHourly.workspaceId, usageRollupsHourly.bucket, usageRollupsHourly.agentId, usageRollupsHourly.model, usageRollupsHourly.sourceKind],
        set: {
          calls: sql`${usageRollupsHourly.calls} + 1`,
          inputTokens: sql`${usageRollupsHourly.inputTokens} + excluded.input_tokens`,
          outputTokens: sql`${usageRollupsHourly.outputTokens} + excluded.output_tokens`,
          cacheReadTokens: sql`${usageRollupsHourly.cacheReadTokens} + excluded.cache_read_tokens`,
          cacheWriteTokens: sql`${usageRollupsHourly.cacheWriteTokens} + excluded.cache_write_tokens`,
          credits: sql`${usageRollupsHourly.credits} + excluded.credits`,
        },
      });
    return { charged: true, credits, unpriced: !priced };
  });
}
