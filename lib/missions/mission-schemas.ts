/** What the crews, missions and comparisons API answers with: the browser parses with these, the routes are type-checked against them. */
import { z } from "zod/mini";
import { id, isoDate, nullableDate } from "../shared-schemas";

const position = z.object({ x: z.number(), y: z.number() });
const edge = z.object({ from: z.string(), to: z.string() });

export const crewNodeSchema = z.object({
  id: z.string(),
  role: z.string(),
  agentId: id,
  agentHandle: z.nullable(z.string()),
  instructions: z.string(),
  position: z.optional(z.nullable(position)),
});

export const crewSchema = z.object({
  id,
  name: z.string(),
  goal: z.nullable(z.string()),
  nodes: z.array(crewNodeSchema),
  edges: z.array(edge),
  maxRounds: z.nullable(z.number()),
  continueOnFailure: z.boolean(),
  concurrency: z.number(),
  updatedAt: isoDate,
});
export type CrewItem = z.infer<typeof crewSchema>;

export const crewListSchema = z.object({ crews: z.array(crewSchema) });
export const crewOneSchema = z.object({ crew: crewSchema });

export const nodeStateSchema = z.enum(["waiting", "paused", "running", "awaiting_approval", "done", "failed", "cancelled", "skipped"]);
export type NodeState = z.infer<typeof nodeStateSchema>;

export const missionNodeSchema = z.object({
  id: z.string(),
  role: z.string(),
  agentId: id,
  agentHandle: z.nullable(z.string()),
  instructions: z.string(),
  position: z.nullable(position),
  state: nodeStateSchema,
  round: z.number(),
  runIds: z.array(id),
  /** Each of the node's runs (one per round) with its tokens and cost: what a replay adds up as of an event. */
  turns: z.array(z.object({ runId: id, tokens: z.number(), credits: z.nullable(z.number()) })),
  /** The latest step of the node's latest run: where "open the run" lands. */
  stepId: z.nullable(id),
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** Null for viewers who may not see spend. */
  credits: z.nullable(z.number()),
});

export const missionStateSchema = z.enum(["queued", "running", "succeeded", "failed", "cancelled"]);

export const missionSchema = z.object({
  id,
  state: missionStateSchema,
  goal: z.string(),
  crewId: id,
  crewName: z.string(),
  nodes: z.array(missionNodeSchema),
  edges: z.array(edge),
  maxRounds: z.nullable(z.number()),
  concurrency: z.number(),
  result: z.nullable(z.string()),
  error: z.nullable(z.string()),
  failedNodeId: z.nullable(z.string()),
  inputTokens: z.number(),
  outputTokens: z.number(),
  credits: z.nullable(z.number()),
  /** What it may spend before a manager is asked (raised by each approval to go on); null: none, or not for this viewer. */
  capCredits: z.optional(z.nullable(z.number())),
  lastSeq: z.number(),
  startedAt: nullableDate,
  finishedAt: nullableDate,
});
export type MissionItem = z.infer<typeof missionSchema>;

export const missionListSchema = z.object({ missions: z.array(missionSchema) });
export const missionOneSchema = z.object({ mission: missionSchema });

export const missionStartedSchema = z.object({ missionId: id });

export const comparisonSchema = z.object({
  id,
  goal: z.string(),
  state: z.enum(["running", "judged"]),
  judgeModel: z.nullable(z.string()),
  /** What the judge's calls cost; null for those who do not see spend. */
  judgeCredits: z.nullable(z.number()),
  sides: z.array(
    z.object({
      mission: missionSchema,
      score: z.nullable(
        z.object({
          criteria: z.array(z.object({ criterion: z.string(), score: z.number(), reason: z.string() })),
          /** When the judge gave no verdict for this side. */
          error: z.optional(z.string()),
        }),
      ),
      /** Sum of the scores, out of 30. */
      total: z.nullable(z.number()),
      approvalsNeeded: z.number(),
      wallMs: z.nullable(z.number()),
    }),
  ),
  createdAt: isoDate,
  judgedAt: nullableDate,
});
export type Comparison = z.infer<typeof comparisonSchema>;

/** A comparison was started: its two missions run on. */
export const comparisonStartedSchema = z.object({ id });

export const comparisonOneSchema = z.object({ comparison: comparisonSchema });
