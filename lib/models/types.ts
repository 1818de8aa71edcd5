import type { z } from "zod";
import type { ErrorCode, ErrorKind } from "../errors";

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
const MODEL_ERROR_BRAND = Symbol.for("clawdeck.ModelError");

export class ModelError extends Error {
  readonly [MODEL_ERROR_BRAND] = true;
  constructor(
    message: string,
    readonly code: string,
    readonly options: { retryable?: boolean; status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ModelError";
  }
}

/** Like `isAppError`: true for a ModelError from any bundle's copy of the class. */
export function isModelError(error: unknown): error is ModelError {
  return !!error && typeof error === "object" && (error as { [MODEL_ERROR_BRAND]?: unknown })[MODEL_ERROR_BRAND] === true;
}

const modelErrorKinds: Record<string, ErrorKind> = {
  provider_rate_limited: "rate_limited",
  provider_overloaded: "unavailable",
  provider_unavailable: "unavailable",
  provider_stream_error: "unavailable",
  provider_stream_incomplete: "unavailable",
  provider_auth: "unavailable",
  provider_error: "unavailable",
};

/**
 * The application code a provider failure is recorded under: the kind says
 * what kind of failure it is (a busy provider is `unavailable`, a refused or
 * malformed answer `unprocessable`), the surface keeps the provider's reason
 * (`unavailable:model_overloaded`), so no code outside the known kinds is stored.
 */
export function modelErrorCode(error: ModelError): ErrorCode {
  const kind = modelErrorKinds[error.code] ?? "unprocessable";
  const reason = error.code.replace(/^provider_/, "").replace(/[^a-z0-9_]/gi, "_") || "error";
  return `${kind}:model_${reason}`;
}

export interface ModelProvider {
  /** Name shown in the UI and written to the ledger with the model id. */
  readonly name: string;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

export type ZodObjectSchema = z.ZodType<Record<string, unknown>>;
