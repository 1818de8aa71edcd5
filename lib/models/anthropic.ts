import { createHash } from "node:crypto";
import Anthropic, { APIConnectionError, APIError } from "@anthropic-ai/sdk";
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  StopReason as AnthropicStopReason,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import { z } from "zod";
import { Redactor } from "../secret-redactor";
import { isModelError, ModelError, type ModelEvent, type ModelMessage, type ModelProvider, type ModelRequest, type StopReason, type Usage } from "./types";

export interface AnthropicProviderOptions {
  apiKey: string;
  baseURL?: string;
  /** Shown in the UI and the ledger; defaults to `anthropic`. */
  name?: string;
  /** HTTP retries the SDK makes on 408/409/429/5xx/529 (honouring `retry-after`), and the bound on re-sent calls. */
  maxRetries?: number;
  fetch?: typeof fetch;
  /** First backoff before re-sending a call whose stream was overloaded before any output; doubles per attempt. */
  retryBaseDelayMs?: number;
  /** Other keys of this server to scrub from error messages, besides `apiKey`. */
  redact?: readonly string[];
  /** Marks the tools, the system prompt and the conversation so far as cacheable (on unless `false`). */
  promptCaching?: boolean;
}

/**
 * How an abort surfaces: the stream throws an `Error` whose `name` is `AbortError`
 * (its `cause` is the signal's reason), never a `ModelError`, so callers can tell a
 * cancelled run from a failed one the same way they do for `fetch`.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): ModelProvider {
  const maxRetries = options.maxRetries ?? 4;
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL ? { baseURL: options.baseURL } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    maxRetries,
  });
  const settings: CallSettings = {
    redactor: new Redactor([options.apiKey, ...(options.redact ?? [])]),
    maxRetries,
    retryBaseDelayMs: options.retryBaseDelayMs ?? 1_000,
    promptCaching: options.promptCaching !== false,
  };
  return {
    name: options.name ?? "anthropic",
    stream: (request) => streamWithRetries(client, request, settings),
  };
}

interface CallSettings {
  redactor: Redactor;
  maxRetries: number;
  retryBaseDelayMs: number;
  promptCaching: boolean;
}

async function* streamWithRetries(client: Anthropic, request: ModelRequest, settings: CallSettings): AsyncGenerator<ModelEvent> {
  const names = createToolNameMap([
    ...request.tools.map((tool) => tool.name),
    ...request.messages.flatMap((message) => message.content.flatMap((block) => (block.type === "tool_use" ? [block.name] : []))),
  ]);
  const params = toMessageParams(request, names, settings.promptCaching);
  const { signal } = request;

  for (let attempt = 0; ; attempt += 1) {
    let yielded = false;
    try {
      for await (const event of streamOnce(client, params, names, signal)) {
        yielded = true;
        yield event;
      }
      return;
    } catch (error) {
      // Checked first: an abort mid-stream ends the SDK's iteration quietly, which reads as an incomplete stream.
      if (signal?.aborted) throw abortError(signal);
      // The SDK retries HTTP failures itself; an overload reported inside a 200 stream is
      // ours to retry, and only while the consumer has seen nothing it would see twice.
      if (!yielded && isInStreamOverload(error) && attempt < settings.maxRetries) {
        await sleep(backoff(settings.retryBaseDelayMs, attempt), signal);
        if (signal?.aborted) throw abortError(signal);
        continue;
      }
      throw toModelError(error, settings.redactor);
    }
  }
}

interface OpenToolCall {
  id: string;
  name: string;
  json: string;
}

async function* streamOnce(
  client: Anthropic,
  params: MessageCreateParamsStreaming,
  names: ToolNameMap,
  signal: AbortSignal | undefined,
): AsyncGenerator<ModelEvent> {
  const stream = await client.messages.create(params, { signal });
  const toolCalls = new Map<number, OpenToolCall>();
  const reported: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  // Held back until the first other event, so a call re-sent after an early overload reports its usage once.
  let pendingUsage: Partial<Usage> | undefined;
  let stopReason: StopReason | undefined;
  let stopped = false;

  const withPending = function* (event?: ModelEvent): Generator<ModelEvent> {
    if (pendingUsage) yield { type: "usage", usage: pendingUsage };
    pendingUsage = undefined;
    if (event) yield event;
  };

  for await (const event of stream) {
    switch (event.type) {
      case "message_start": {
        const usage = event.message.usage;
        pendingUsage = addUsage(
          reported,
          {
            inputTokens: usage.input_tokens,
            outputTokens: usage.output_tokens,
            cacheReadTokens: usage.cache_read_input_tokens ?? 0,
            cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
          },
          true,
        );
        break;
      }
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "tool_use") toolCalls.set(event.index, { id: block.id, name: names.fromWire(block.name), json: "" });
        else if (block.type === "text" && block.text) yield* withPending({ type: "text", delta: block.text });
        else if (block.type === "thinking" && block.thinking) yield* withPending({ type: "thinking", delta: block.thinking });
        break;
      }
      case "content_block_delta": {
        const delta = event.delta;
        if (delta.type === "text_delta") yield* withPending({ type: "text", delta: delta.text });
        else if (delta.type === "thinking_delta") yield* withPending({ type: "thinking", delta: delta.thinking });
        else if (delta.type === "input_json_delta") {
          const call = toolCalls.get(event.index);
          if (call) call.json += delta.partial_json;
        }
        break;
      }
      case "content_block_stop": {
        const call = toolCalls.get(event.index);
        if (call) {
          toolCalls.delete(event.index);
          yield* withPending({ type: "tool_call", id: call.id, name: call.name, input: parseToolInput(call) });
        }
        break;
      }
      case "message_delta": {
        const usage = event.usage;
        const grown = addUsage(
          reported,
          {
            inputTokens: usage.input_tokens ?? 0,
            outputTokens: usage.output_tokens,
            cacheReadTokens: usage.cache_read_input_tokens ?? 0,
            cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
          },
          false,
        );
        yield* withPending(Object.keys(grown).length > 0 ? { type: "usage", usage: grown } : undefined);
        if (event.delta.stop_reason) stopReason = toStopReason(event.delta.stop_reason);
        break;
      }
      case "message_stop":
        stopped = true;
        yield* withPending({ type: "stop", reason: stopReason ?? "end_turn" });
        break;
    }
  }
  if (!stopped) throw new ModelError("The Anthropic stream ended before the message was complete.", "provider_stream_incomplete");
}

/**
 * Usage events carry increments: summing every usage event of a call gives its totals.
 * Anthropic reports cumulative counts, so each report is diffed against what was already
 * sent; `all` keeps zero fields (the first report), otherwise only fields that grew appear.
 */
function addUsage(reported: Usage, cumulative: Usage, all: boolean): Partial<Usage> {
  const increment: Partial<Usage> = {};
  for (const key of Object.keys(reported) as (keyof Usage)[]) {
    const grew = Math.max(0, cumulative[key] - reported[key]);
    if (all || grew > 0) increment[key] = grew;
    reported[key] += grew;
  }
  return increment;
}

const toolInputSchema = z.record(z.string(), z.unknown());

function parseToolInput(call: OpenToolCall): Record<string, unknown> {
  if (call.json.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(call.json);
  } catch {
    // The parser's message quotes the input: what the model wrote stays out of the run's error.
    throw new ModelError(`The model sent input for tool "${call.name}" that is not valid JSON (${call.json.length} characters).`, "bad_tool_input");
  }
  const parsed = toolInputSchema.safeParse(value);
  if (!parsed.success) throw new ModelError(`The model sent a non-object input for tool "${call.name}".`, "bad_tool_input");
  return parsed.data;
}

const stopReasons: Record<AnthropicStopReason, StopReason> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  refusal: "refusal",
  pause_turn: "pause_turn",
  // Out of room either way: the runtime treats both as a truncated answer.
  model_context_window_exceeded: "max_tokens",
};

function toStopReason(reason: AnthropicStopReason): StopReason {
  return stopReasons[reason] ?? "end_turn";
}

// ——— Request mapping ———

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * The request as the API takes it. With caching, three cache breakpoints (the API allows four): the last tool (the
 * tools are the prompt's first part), the system prompt (tools and system together), and the last block of the
 * conversation. A tool loop sends the same conversation again with the call and its result added, so each call reads
 * the one before it from the cache and pays full price only for what was added; a chat's next turn does the same.
 */
export function toMessageParams(request: ModelRequest, names: ToolNameMap, caching = true): MessageCreateParamsStreaming {
  const tools: Tool[] = request.tools.map((tool) => ({
    name: names.toWire(tool.name),
    description: tool.description,
    input_schema: { ...tool.inputSchema, type: "object" },
  }));
  const messages = toMessages(request.messages, names);
  const system = request.system.trim() ? [{ type: "text" as const, text: request.system }] : [];
  if (caching) {
    const lastTool = tools.at(-1);
    if (lastTool) lastTool.cache_control = EPHEMERAL;
    const systemBlock = system.at(-1);
    if (systemBlock) Object.assign(systemBlock, { cache_control: EPHEMERAL });
    const lastBlock = messages.at(-1)?.content.at(-1);
    if (lastBlock && typeof lastBlock === "object" && lastBlock.type !== "thinking" && lastBlock.type !== "redacted_thinking") {
      Object.assign(lastBlock, { cache_control: EPHEMERAL });
    }
  }
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    messages,
    ...(system.length > 0 ? { system } : {}),
    ...(tools.length > 0 ? { tools } : {}),
    stream: true,
  };
}

/**
 * The API refuses blank text blocks and empty messages, so those are dropped, and the
 * neighbours a dropped message leaves behind are merged to keep the roles alternating.
 */
function toMessages(messages: ModelMessage[], names: ToolNameMap): MessageParam[] {
  const result: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  for (const message of messages) {
    const content = message.content.flatMap((block): ContentBlockParam[] => {
      switch (block.type) {
        case "text":
          return block.text.trim() ? [{ type: "text", text: block.text }] : [];
        case "tool_use":
          return [{ type: "tool_use", id: block.id, name: names.toWire(block.name), input: block.input }];
        case "tool_result":
          return [{ type: "tool_result", tool_use_id: block.toolUseId, content: block.content, is_error: block.isError === true }];
      }
    });
    if (content.length === 0) continue;
    const last = result.at(-1);
    if (last?.role === message.role) last.content.push(...content);
    else result.push({ role: message.role, content });
  }
  // The API wants a user turn's tool results ahead of anything else in it.
  for (const message of result) {
    if (message.role === "user") message.content.sort((a, b) => Number(b.type === "tool_result") - Number(a.type === "tool_result"));
  }
  return result;
}

// ——— Tool names ———

const wireName = /^[a-zA-Z0-9_-]{1,64}$/;

export interface ToolNameMap {
  toWire(name: string): string;
  fromWire(wire: string): string;
}

/**
 * Our tool names may contain dots (`http.fetch`), which the API refuses. Names it accepts
 * are sent unchanged; others have each refused character replaced by `_` (`http_fetch`),
 * and a name that would then clash with another, or is too long, gets a hash suffix. The
 * map is built from every name in a request, so it is one-to-one within that request.
 */
export function createToolNameMap(names: Iterable<string>): ToolNameMap {
  const toWire = new Map<string, string>();
  const fromWire = new Map<string, string>();
  const unique = [...new Set(names)];
  const claim = (name: string, wire: string) => {
    toWire.set(name, wire);
    fromWire.set(wire, name);
  };
  for (const name of unique.filter((name) => wireName.test(name))) claim(name, name);
  // Sorted so the mapping depends on the set of names, not on the order tools are listed.
  for (const name of unique.filter((name) => !wireName.test(name)).sort()) {
    const replaced = name.replace(/[^a-zA-Z0-9_-]/g, "_");
    let wire = replaced;
    for (let salt = 0; !wireName.test(wire) || fromWire.has(wire); salt += 1) {
      const hash = createHash("sha256").update(`${salt}:${name}`).digest("hex").slice(0, 8);
      wire = `${replaced.slice(0, 55)}_${hash}`;
    }
    claim(name, wire);
  }
  return {
    toWire: (name) => toWire.get(name) ?? name,
    fromWire: (wire) => fromWire.get(wire) ?? wire,
  };
}

// ——— Errors ———

function isInStreamOverload(error: unknown): boolean {
  return error instanceof APIError && error.status === undefined && error.type === "overloaded_error";
}

function toModelError(error: unknown, redactor: Redactor): ModelError {
  const redact = (text: string) => redactor.text(text);
  if (isModelError(error)) {
    return new ModelError(redact(error.message), error.code, error.options);
  }
  if (error instanceof APIConnectionError) {
    return new ModelError(redact(`Could not reach the Anthropic API: ${error.message}`), "provider_unavailable", { retryable: true });
  }
  if (error instanceof APIError) {
    const type = error.type ?? "unknown_error";
    const detail = error.apiMessage ?? error.message;
    const status = error.status;
    if (status === undefined) {
      const overloaded = type === "overloaded_error";
      return new ModelError(redact(`The Anthropic stream failed with ${type}: ${detail}`), overloaded ? "provider_overloaded" : "provider_stream_error", {
        retryable: overloaded,
      });
    }
    const message = redact(`Anthropic API error ${status} ${type}: ${detail}`);
    if (status === 401 || status === 403) return new ModelError(message, "provider_auth", { status });
    if (status === 429) return new ModelError(message, "provider_rate_limited", { status, retryable: true });
    if (status === 529 || type === "overloaded_error") return new ModelError(message, "provider_overloaded", { status, retryable: true });
    if (status >= 500) return new ModelError(message, "provider_unavailable", { status, retryable: true });
    return new ModelError(message, "provider_rejected", { status });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(redact(`The Anthropic call failed: ${message}`), "provider_error");
}

function abortError(signal: AbortSignal | undefined): Error {
  const error = new Error("The model call was aborted.", { cause: signal?.reason });
  error.name = "AbortError";
  return error;
}

function backoff(baseMs: number, attempt: number): number {
  const jitter = 1 - Math.random() * 0.25;
  return Math.min(baseMs * 2 ** attempt, 30_000) * jitter;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
