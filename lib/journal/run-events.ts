import { z } from "zod/mini";
import { decisionChannels } from "../decision-channels";

/**
 * Run events: what the journal stores and what every subscriber receives,
 * live or replayed. The browser parses them with these same schemas (zod's
 * mini build, which keeps them out of the chat's first-load script).
 */
const stepStatus = z.enum(["pending", "running", "succeeded", "failed", "awaiting_approval", "refused", "unconfirmed"]);
const preview = z.object({
  title: z.string(),
  fields: z.array(z.object({ label: z.string(), value: z.string() })),
  body: z.optional(z.string()),
  diff: z.optional(z.string()),
});

export const runEventSchemas = {
  run_started: z.object({
    runId: z.string(),
    agentId: z.string(),
    agentHandle: z.string(),
    model: z.string(),
    offline: z.boolean(),
    replyMessageId: z.string(),
  }),
  text: z.object({ delta: z.string() }),
  thinking: z.object({ delta: z.string() }),
  step_started: z.object({
    stepId: z.string(),
    callId: z.string(),
    tool: z.string(),
    input: z.unknown(),
    position: z.int(),
    preview: z.nullable(preview),
  }),
  step_finished: z.object({
    stepId: z.string(),
    callId: z.string(),
    tool: z.string(),
    status: stepStatus,
    output: z.optional(z.unknown()),
    error: z.nullable(z.string()),
    taint: z.array(z.string()),
    durationMs: z.int(),
  }),
  /** `stepId` is null for a source the run started with (handed on by another agent, or the door it came through). */
  run_tainted: z.object({ source: z.string(), stepId: z.nullable(z.string()) }),
  usage: z.object({
    model: z.string(),
    inputTokens: z.int(),
    outputTokens: z.int(),
    /** Prompt tokens read from the provider's cache and written to it, besides `inputTokens` (absent before caching). */
    cacheReadTokens: z.optional(z.int()),
    cacheWriteTokens: z.optional(z.int()),
    /** Null for viewers who may not see spend (members). */
    credits: z.nullable(z.int()),
    estimated: z.boolean(),
    /** Milliseconds of the agent's computer, for a compute charge (its `model` is `sandbox` or `browser`). */
    computeMs: z.optional(z.int()),
  }),
  approval_required: z.object({
    approvalId: z.string(),
    /** Null for a request that is no tool call: a run that reached its spending cap asks whether it may go on. */
    stepId: z.nullable(z.string()),
    callId: z.string(),
    tool: z.string(),
    category: z.string(),
    reason: z.string(),
    preview,
    taintSources: z.array(z.object({ source: z.string(), stepId: z.nullable(z.string()) })),
    expiresAt: z.string(),
  }),
  run_suspended: z.object({ approvalId: z.string() }),
  approval_decided: z.object({
    approvalId: z.string(),
    /** `withdrawn`: the workspace policy came to deny the call while it waited. */
    status: z.enum(["approved", "rejected", "expired", "withdrawn"]),
    decidedBy: z.nullable(z.string()),
    /** The person's name as it was when they decided, and where they did it. */
    decidedByName: z.optional(z.string()),
    via: z.optional(z.enum(decisionChannels)),
    /** The governor's judge decided it, not a person. */
    byJudge: z.optional(z.boolean()),
    reason: z.nullable(z.string()),
    inputEdited: z.boolean(),
    /** The input that will run instead of the asked one, and its preview: only when a reviewer edited it. */
    input: z.optional(z.record(z.string(), z.unknown())),
    preview: z.optional(preview),
  }),
  run_resumed: z.object({ approvalId: z.string(), recovered: z.optional(z.boolean()) }),
  /** A running step's output as it comes (a command's), gathered into pieces; the step's result has it all. */
  tool_output: z.object({ stepId: z.string(), stream: z.enum(["stdout", "stderr"]), text: z.string() }),
  dispatch_started: z.object({ stepId: z.string(), callId: z.string(), tool: z.string(), fingerprint: z.string() }),
  dispatch_finished: z.object({ stepId: z.string(), callId: z.string(), resultHash: z.string(), isError: z.boolean(), unconfirmed: z.boolean() }),
  run_completed: z.object({ replyMessageId: z.string() }),
  run_failed: z.object({ code: z.string(), message: z.string() }),
  run_cancelled: z.object({ reason: z.string() }),
} as const;

export type RunEventType = keyof typeof runEventSchemas;
export type RunEventPayload<T extends RunEventType> = z.infer<(typeof runEventSchemas)[T]>;
export type RunEventInput = { [T in RunEventType]: { type: T; payload: RunEventPayload<T> } }[RunEventType];
export type RunEvent = RunEventInput & { seq: number; at: string };
/** The event that ends a run's journal. */
export type TerminalEventInput = Extract<RunEventInput, { type: "run_completed" | "run_failed" | "run_cancelled" }>;

export const terminalEventTypes: ReadonlySet<string> = new Set<RunEventType>(["run_completed", "run_failed", "run_cancelled"]);

export function isTerminal(type: string): boolean {
  return terminalEventTypes.has(type);
}

/** Parses one event as it came over the wire; unknown types are passed over by callers. */
export function parseRunEvent(type: string, seq: number, at: string, payload: unknown): RunEvent | null {
  const schema = (runEventSchemas as Record<string, z.ZodMiniType>)[type];
  if (!schema) return null;
  const parsed = schema.safeParse(payload);
  return parsed.success ? ({ type, payload: parsed.data, seq, at } as RunEvent) : null;
}
