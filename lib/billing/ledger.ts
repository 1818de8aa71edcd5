import { sql } from "drizzle-orm";
import { rowsOf, type Db } from "../db/client";
import { usageEvents, usageRollupsDaily, usageRollupsHourly } from "../db/schema";
import type { Usage } from "../models/types";
import { lookupComputePrice, lookupPrice } from "./price-book";
import { computeCredits, creditsAtRates, type ComputeKind } from "./prices";

export type UsageSource =
  | { kind: "run"; runId: string }
  | { kind: "mission_run"; id: string; runId: string }
  | { kind: "compute"; id: string; runId: string }
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

/** The sums a rollup row adds up, in the order the statement below lists them. */
const sumColumns = sql.raw("calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, credits, unpriced_calls, compute_ms");

/** Adds the inserted row's sums to the rollup row (`table`) it collided with. */
function increments(table: string) {
  return sql.raw(
    ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "credits", "unpriced_calls", "compute_ms"]
      .map((c) => `${c} = ${table}.${c} + excluded.${c}`)
      .concat(`calls = ${table}.calls + 1`)
      .join(", "),
  );
}

/**
 * Writes one ledger row for one model call, and adds it to the hourly and daily
 * rollups in the same statement, so the rollups always equal the ledger: a
 * data-modifying query inserts the row (nothing when its idempotency key is
 * already there) and adds what it inserted to both rollups. Being one
 * statement, it holds a rollup row's lock only while it runs, never across a
 * round trip to the server, so concurrent calls of the same hour (day), agent
 * and model queue for microseconds, and none of their increments is lost. The
 * price is the workspace's, read just before; a model without one is charged
 * at the default and flagged. A repeated idempotency key changes nothing.
 */
export async function chargeUsage(db: Db, input: ChargeInput): Promise<ChargeResult> {
  const price = await lookupPrice(db, input.workspaceId, input.model);
  const credits = creditsAtRates(input.usage, price.rates);
  const charged = await insertCharge(db, { ...input, credits, unpriced: price.priced ? 0 : 1, computeMs: 0 });
  if (!charged) return { charged: false, credits: 0, unpriced: !price.priced };
  return { charged: true, credits, unpriced: !price.priced };
}

/**
 * Charges `ms` of an agent's computer (a command's wall time, a browser call's) at the workspace's compute price, as
 * a `compute` row of the ledger: the same rollups, cards and budgets as model calls. Idempotent per key.
 */
export async function chargeCompute(
  db: Db,
  input: { workspaceId: string; agentId: string; runId: string; stepId: string; kind: ComputeKind; ms: number },
): Promise<ChargeResult> {
  const price = await lookupComputePrice(db, input.workspaceId);
  const ms = Math.max(0, Math.round(input.ms));
  const credits = computeCredits(ms, price.creditsPerSecond);
  const charged = await insertCharge(db, {
    workspaceId: input.workspaceId,
    agentId: input.agentId,
    source: { kind: "compute", id: input.stepId, runId: input.runId },
    model: input.kind,
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    idempotencyKey: `compute:${input.stepId}`,
    credits,
    unpriced: 0,
    computeMs: ms,
  });
  return { charged, credits: charged ? credits : 0, unpriced: false };
}

/** Writes one ledger row and adds it to the rollups (see chargeUsage); false when its key was there already. */
async function insertCharge(db: Db, input: ChargeInput & { credits: number; unpriced: number; computeMs: number }): Promise<boolean> {
  const { usage, source, credits, unpriced } = input;
  // Rows of agent runs (a mission node's and a computer's included) point at agent_runs; other sources name themselves.
  const runId = "runId" in source ? source.runId : null;
  const sourceId = source.kind === "run" ? source.runId : source.id;
  const result = await db.execute(sql`
    with charged as (
      insert into ${usageEvents} (workspace_id, agent_id, run_id, source_kind, source_id, model, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, credits, unpriced, compute_ms, idempotency_key, created_at)
      values (${input.workspaceId}::uuid, ${input.agentId}::uuid, ${runId}::uuid, ${source.kind}::usage_source, ${sourceId}, ${input.model},
        ${usage.inputTokens}, ${usage.outputTokens}, ${usage.cacheReadTokens}, ${usage.cacheWriteTokens}, ${credits}, ${unpriced},
        ${input.computeMs}, ${input.idempotencyKey}, coalesce(${input.occurredAt?.toISOString() ?? null}::timestamptz, now()))
      on conflict (idempotency_key) do nothing
      returning workspace_id, agent_id, model, source_kind, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
        credits, unpriced, compute_ms, created_at
    ),
    hourly as (
      -- Buckets are UTC hours and days whatever the server's time zone, so ranges on whole hours line up.
      insert into ${usageRollupsHourly} (workspace_id, bucket, agent_id, model, source_kind, ${sumColumns})
      select workspace_id, date_trunc('hour', created_at, 'UTC'), agent_id, model, source_kind, 1, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, credits, unpriced, compute_ms
      from charged
      on conflict on constraint usage_rollups_hourly_key do update set ${increments("usage_rollups_hourly")}
    ),
    daily as (
      insert into ${usageRollupsDaily} (workspace_id, day, agent_id, model, source_kind, ${sumColumns})
      select workspace_id, date_trunc('day', created_at, 'UTC'), agent_id, model, source_kind, 1, input_tokens, output_tokens,
        cache_read_tokens, cache_write_tokens, credits, unpriced, compute_ms
      from charged
      on conflict on constraint usage_rollups_daily_key do update set ${increments("usage_rollups_daily")}
    )
    select 1 from charged
  `);
  return rowsOf(result).length > 0;
}
