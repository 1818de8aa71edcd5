import type { z } from "zod";

/** A block of a message in the provider-neutral conversation the runtime keeps. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; toolUseId: string; content: string; isError?: boolean };

export interface ModelMessage {
  role: "user" | "assistant";
  content: ContentBlock[];
}

/** A tool as the model sees it: the JSON Schema is made from the tool's zod schema. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ModelRequest {
  /** The model id for the provider (the part after `name:` in a spec). */
  model: string;
  system: string;
  messages: ModelMessage[];
  tools: ToolSpec[];
  maxTokens: number;
  signal?: AbortSignal;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "pause_turn";

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** What a provider streams. A tool call arrives whole, with its input parsed. */
export type ModelEvent =
  | { type: "text"; delta: string }
  | { type: "thinking"; delta: string }
  | { type: "tool_call"; id: string; name: string; input: Record<string, unknown> }
  | { type: "usage"; usage: Partial<Usage> }
  | { type: "stop"; reason: StopReason };

/**
 * A failed model call. `retryable` errors (rate limits, overload) were already
 * retried by the provider; what reaches the runtime fails the run with `message`.
 */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly options: { retryable?: boolean; status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ModelError";
  }
}

export interface ModelProvider {
  /** Name shown in the UI and written to the ledger with the model id. */
  readonly name: string;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

export type ZodObjectSchema = z.ZodType<Record<string, unknown>>;
