import { z } from "zod";
import { AppError } from "../errors";
import type { LoopState } from "./types";

const contentBlock = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal("tool_result"), toolUseId: z.string(), content: z.string(), isError: z.boolean().optional() }),
]);
const call = z.object({ id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) });
const toolResult = z.object({ type: z.literal("tool_result"), toolUseId: z.string(), content: z.string(), isError: z.boolean().optional() });

const fields = {
  system: z.string(),
  conversation: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.array(contentBlock) })),
  fullText: z.string(),
  position: z.number().int().min(0),
  modelCalls: z.number().int().min(0),
  taint: z.array(z.object({ source: z.string(), stepId: z.string().nullable() })),
  batch: z.array(call),
  pending: z.array(call),
  results: z.array(toolResult),
};

/** The checkpoint as stored since version 2. */
export const checkpointSchema = z.object({ version: z.literal(2), ...fields });
/** Version 1 had the same fields; it is read and carried on as version 2. */
const checkpointV1Schema = z.object({ version: z.literal(1), ...fields });

const anyVersion = z.union([checkpointSchema, checkpointV1Schema.transform((v) => ({ ...v, version: 2 as const }))]);

/** Reads a stored checkpoint; a damaged one is `internal:checkpoint`, which fails the run. */
export function parseCheckpoint(raw: unknown): LoopState {
  const parsed = anyVersion.safeParse(raw);
  if (!parsed.success) throw new AppError("internal:checkpoint", "The run's saved state is damaged and it cannot continue.");
  const state = parsed.data;
  // Every pending call is one of the batch; results answer calls of the batch.
  const ids = new Set(state.batch.map((c) => c.id));
  if (!state.pending.every((c) => ids.has(c.id)) || !state.results.every((r) => ids.has(r.toolUseId))) {
    throw new AppError("internal:checkpoint", "The run's saved state is damaged and it cannot continue.");
  }
  return state as LoopState;
}
