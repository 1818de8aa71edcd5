/** What the runs API answers with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate, nullableDate } from "../shared-schemas";

/** A run's states: it runs from the moment it is created, waits (suspended) on a decision, and ends one of three ways. */
export const runStateSchema = z.enum(["running", "suspended", "succeeded", "failed", "cancelled"]);
export type RunState = z.infer<typeof runStateSchema>;

export const runSummarySchema = z.object({
  run: z.object({
    id,
    state: runStateSchema,
    trigger: z.string(),
    sessionId: z.nullable(id),
    threadId: z.nullable(id),
    roomId: z.nullable(id),
    inputText: z.nullable(z.string()),
    hop: z.number(),
    error: z.nullable(z.string()),
    errorCode: z.nullable(z.string()),
    inputTokens: z.number(),
    outputTokens: z.number(),
    /** Null for viewers who may not see spend. */
    credits: z.nullable(z.number()),
    lastSeq: z.number(),
    createdAt: isoDate,
    finishedAt: nullableDate,
    /** A pending approval holds the run (a suspended run without one is a door session between calls). */
    awaitingApproval: z.optional(z.boolean()),
  }),
  /** Missing when the agent was deleted since. */
  agent: z.optional(z.object({ id, handle: z.string(), name: z.string(), color: z.string(), model: z.string() })),
});
export type RunSummary = z.infer<typeof runSummarySchema>;
