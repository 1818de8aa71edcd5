import { and, asc, eq, ne, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { statement } from "../db/statements";
import { modelPrices } from "../db/schema";
import { recordAudit } from "../audit";
import {
  COMPUTE_PRICE_KEY,
  CREDITS_PER_USD,
  DEFAULT_PRICE_KEY,
  defaultComputeUsdPerSecond,
  defaultPrices,
  fallbackPrice,
  isNominal,
  priceOf,
  creditsPerMtok,
  ratesOf,
  resolvePrice,
  type ModelPrice,
  type PriceRates,
  type ResolvedPrice,
} from "./prices";

// Read at every model call.
const workspacePrices = statement((db) => db.select().from(modelPrices).where(eq(modelPrices.workspaceId, sql.placeholder("workspaceId"))).prepare("workspace_prices"));

/** A workspace's stored prices, in credits per million tokens. */
export async function loadWorkspacePrices(db: Db, workspaceId: string): Promise<{ model: string; rates: PriceRates }[]> {
  const rows = await workspacePrices(db).execute({ workspaceId });
  return rows.map((r) => ({
    model: r.model,
    rates: { input: r.inputCreditsPerMtok, output: r.outputCreditsPerMtok, cacheRead: r.cacheReadCreditsPerMtok, cacheWrite: r.cacheWriteCreditsPerMtok },
  }));
}

/** The price a call of `model` is charged at in this workspace right now. */
export async function lookupPrice(db: Db, workspaceId: string, model: string): Promise<ResolvedPrice> {
  return resolvePrice(model, await loadWorkspacePrices(db, workspaceId));
}

/** The price of a second of an agent's computer in this workspace (see `COMPUTE_PRICE_KEY`). */
export async function lookupComputePrice(db: Db, workspaceId: string): Promise<{ creditsPerSecond: number; source: "workspace" | "built-in" }> {
  const own = (await loadWorkspacePrices(db, workspaceId)).find((p) => p.model === COMPUTE_PRICE_KEY);
  return own ? { creditsPerSecond: own.rates.input, source: "workspace" } : { creditsPerSecond: Math.round(defaultComputeUsdPerSecond * CREDITS_PER_USD), source: "built-in" };
}

export interface PriceListEntry extends ModelPrice {
  model: string;
  source: "workspace" | "built-in";
  /** The offline model's price is a demo figure: nothing is really spent. */
  nominal: boolean;
  /** A built-in price replaced by a workspace price for the same model. */
  overridden: boolean;
}

export interface PriceList {
  prices: PriceListEntry[];
  /** Charged for models with no price; such charges are flagged. */
  defaultPrice: ModelPrice & { source: "workspace" | "built-in" };
  /** A second of an agent's computer (a command, a browser call); the built-in price is nominal. */
  compute: { usdPerSecond: number; source: "workspace" | "built-in"; nominal: boolean };
}

/** The workspace's prices and the built-in list beside them, as the settings page shows them. */
export async function getPriceList(db: Db, workspaceId: string): Promise<PriceList> {
  const rows = await db.select().from(modelPrices).where(eq(modelPrices.workspaceId, workspaceId)).orderBy(asc(modelPrices.model));
  const own = rows.filter((r) => r.model !== DEFAULT_PRICE_KEY && r.model !== COMPUTE_PRICE_KEY);
  const fallback = rows.find((r) => r.model === DEFAULT_PRICE_KEY);
  const compute = rows.find((r) => r.model === COMPUTE_PRICE_KEY);
  const toPrice = (r: (typeof rows)[number]) =>
    priceOf({ input: r.inputCreditsPerMtok, output: r.outputCreditsPerMtok, cacheRead: r.cacheReadCreditsPerMtok, cacheWrite: r.cacheWriteCreditsPerMtok });
  return {
    prices: [
      ...own.map((r) => ({ model: r.model, ...toPrice(r), source: "workspace" as const, nominal: isNominal(r.model), overridden: false })),
      ...defaultPrices.map((p) => ({
        model: p.prefix,
        ...p.price,
        source: "built-in" as const,
        nominal: isNominal(p.prefix),
        overridden: own.some((r) => r.model === p.prefix),
      })),
    ],
    defaultPrice: fallback ? { ...toPrice(fallback), source: "workspace" } : { ...fallbackPrice, source: "built-in" },
    compute: compute
      ? { usdPerSecond: compute.inputCreditsPerMtok / CREDITS_PER_USD, source: "workspace", nominal: false }
      : { usdPerSecond: defaultComputeUsdPerSecond, source: "built-in", nominal: true },
  };
}

/** Dollars per million tokens: at most $100,000 and six decimals, so it is a whole number of credits. */
const usdPerMtokSchema = z
  .number()
  .min(0)
  .max(100_000)
  .refine((v) => Math.abs(v * 1_000_000 - Math.round(v * 1_000_000)) < 1e-6, "Use at most six decimals (1 credit = $0.000001)");

export const modelPriceSchema = z.object({
  input: usdPerMtokSchema,
  output: usdPerMtokSchema,
  cacheRead: usdPerMtokSchema,
  cacheWrite: usdPerMtokSchema,
});

export const updatePricesSchema = z
  .object({
    prices: z
      .array(
        modelPriceSchema.extend({
          model: z
            .string()
            .trim()
            .min(1)
            .max(100)
            .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/, "A model id or prefix: letters, digits and . _ : / @ -"),
        }),
      )
      .max(200),
    /** Null goes back to the built-in default. */
    defaultPrice: modelPriceSchema.nullable(),
    /** US dollars per second of an agent's computer; null goes back to the built-in price, left out keeps it as it is. */
    compute: z.object({ usdPerSecond: usdPerMtokSchema.max(10) }).nullable().optional(),
  })
  .refine((v) => new Set(v.prices.map((p) => p.model)).size === v.prices.length, { message: "Each model may appear once", path: ["prices"] });

export type UpdatePricesInput = z.infer<typeof updatePricesSchema>;

/** Replaces the workspace's prices; the next model call is charged at them. */
export async function updatePrices(db: Db, workspaceId: string, actorId: string, input: UpdatePricesInput): Promise<PriceList> {
  const rows = [
    ...input.prices.map((p) => ({ model: p.model, rates: ratesOf(p) })),
    ...(input.defaultPrice ? [{ model: DEFAULT_PRICE_KEY, rates: ratesOf(input.defaultPrice) }] : []),
  ];
  if (input.compute) rows.push({ model: COMPUTE_PRICE_KEY, rates: { input: creditsPerMtok(input.compute.usdPerSecond), output: 0, cacheRead: 0, cacheWrite: 0 } });
  await db.transaction(async (tx) => {
    // Left out, the compute price stays as it is (a client that knows only model prices keeps it).
    await tx
      .delete(modelPrices)
      .where(and(eq(modelPrices.workspaceId, workspaceId), input.compute === undefined ? ne(modelPrices.model, COMPUTE_PRICE_KEY) : undefined));
    if (rows.length > 0) {
      await tx.insert(modelPrices).values(
        rows.map((r) => ({
          workspaceId,
          model: r.model,
          inputCreditsPerMtok: r.rates.input,
          outputCreditsPerMtok: r.rates.output,
          cacheReadCreditsPerMtok: r.rates.cacheRead,
          cacheWriteCreditsPerMtok: r.rates.cacheWrite,
        })),
      );
    }
    await recordAudit(tx, {
      workspaceId,
      actor: { kind: "user", id: actorId },
      action: "prices.updated",
      target: { type: "workspace", id: workspaceId },
      detail: { prices: input.prices, defaultPrice: input.defaultPrice, compute: input.compute, creditsPerMtok: rows.map((r) => ({ model: r.model, ...r.rates })) },
    });
  });
  return getPriceList(db, workspaceId);
}

