/** What the agents API answers with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate, nullableDate } from "../shared-schemas";
import { runStateSchema } from "../runs/run-schemas";

export const agentSummarySchema = z.object({
  id,
  handle: z.string(),
  name: z.string(),
  description: z.string(),
  model: z.string(),
  tools: z.array(z.string()),
  color: z.string(),
  status: z.enum(["active", "paused"]),
  /** Sent back with every edit: the server refuses an edit made from an older version (409 conflict:stale). */
  version: z.number(),
});
export type AgentSummary = z.infer<typeof agentSummarySchema>;

export const agentListSchema = z.object({ agents: z.array(agentSummarySchema) });

/** The reply of creating or editing an agent. */
export const agentReplySchema = z.object({ agent: agentSummarySchema });

export const agentDetailSchema = z.object({
  agent: z.extend(agentSummarySchema, {
    systemPrompt: z.string(),
    /** Null for viewers who may not see spend. */
    monthlyBudgetCredits: z.nullable(z.number()),
    createdAt: isoDate,
    updatedAt: isoDate,
  }),
  runs: z.array(
    z.object({
      id,
      trigger: z.string(),
      state: runStateSchema,
      sessionId: z.nullable(id),
      error: z.nullable(z.string()),
      /** Null for viewers who may not see spend. */
      credits: z.nullable(z.number()),
      createdAt: isoDate,
      finishedAt: nullableDate,
    }),
  ),
  messages: z.array(
    z.object({
      id,
      body: z.string(),
      fromAgentId: z.nullable(id),
      toAgentId: z.nullable(id),
      roomId: z.nullable(id),
      /** Null when the viewer may not open the run. */
      runId: z.nullable(id),
      createdAt: isoDate,
    }),
  ),
  /** Null for viewers who may not see spend. */
  spend30d: z.nullable(z.object({ credits: z.number(), calls: z.number() })),
});
export type AgentDetail = z.infer<typeof agentDetailSchema>;
