import { randomUUID } from "node:crypto";
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { countBreakpoints, MAX_CACHE_BREAKPOINTS, PromptCache, promptTokens, type MeasuredUsage } from "./fake-anthropic-cache";

/**
 * A local stand-in for the Anthropic Messages API (streaming only). It refuses
 * requests the real service refuses, so a provider that passes against it sends
 * well-formed conversations, and it answers from a queue of scripted responses.
 */

export interface FakeUsage {
  input?: number;
  /** Cumulative output tokens reported by `message_delta`; defaults to one per chunk. */
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export type FakeBlock =
  | { type: "text"; chunks: string[] }
  | { type: "thinking"; chunks: string[]; signature?: string }
  | { type: "tool_use"; id: string; name: string; inputChunks: string[] };

export type FakeResponse =
  /** `hang` keeps the stream open after the blocks; `cut` ends it there without message_delta/message_stop. */
  | { kind: "reply"; blocks: FakeBlock[]; stopReason?: string; usage?: FakeUsage; hang?: boolean; cut?: boolean }
  | { kind: "http_error"; status: number; errorType: string; message: string; headers?: Record<string, string> }
  | { kind: "stream_error"; blocks: FakeBlock[]; errorType: string; message: string; usage?: FakeUsage };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The HTTP status the fake answered with. */
  status: number;
}

export interface FakeAnthropic {
  /** Pass as the SDK's `baseURL`. */
  baseURL: string;
  requests: RecordedRequest[];
  enqueue(...responses: FakeResponse[]): void;
  /** Scripted responses not yet used. */
  pending(): number;
  /** Forgets the queue and the recorded requests (between tests). */
  reset(): void;
  close(): Promise<void>;
}

export interface FakeAnthropicOptions {
  apiKey?: string;
  /**
   * Counts each prompt (one token per four characters of a block) and caches its prefixes as the API does, reporting
   * input, cache read and cache write tokens from the request; a scripted reply's own `usage.input` is then ignored.
   */
  measureUsage?: boolean;
  /** The model's context window: a longer prompt plus `max_tokens` is refused, as the API does (default 200,000). */
  contextWindow?: number;
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: FakeResponse[] = [];
  const requests: RecordedRequest[] = [];
  const cache = new PromptCache();
  const window = options.contextWindow ?? 200_000;

  const server = http.createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, "api_error", `fake-anthropic crashed: ${String(error)}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Kept as text in the record; refused below.
    }
    const record: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, status: 0 };
    requests.push(record);
    const answer = (status: number, type: string, message: string, headers?: Record<string, string>) => {
      record.status = status;
      sendError(res, status, type, message, headers);
    };

    if (req.method !== "POST" || record.path.split("?")[0] !== "/v1/messages") {
      return answer(404, "not_found_error", `Not found: ${req.method} ${record.path}`);
    }
    const key = presentedKey(req.headers);
    if (!key) return answer(401, "authentication_error", "x-api-key header is required");
    if (options.apiKey !== undefined && key !== options.apiKey) return answer(401, "authentication_error", "invalid x-api-key");
    if (!req.headers["anthropic-version"]) return answer(400, "invalid_request_error", "anthropic-version: header is required");
    if (typeof body === "string") return answer(400, "invalid_request_error", "The request body is not valid JSON.");
    const problem = validateRequest(body);
    if (problem) return answer(400, "invalid_request_error", problem);
    const json = body as Record<string, unknown>;
    const breakpoints = countBreakpoints(json);
    if (breakpoints > MAX_CACHE_BREAKPOINTS) {
      return answer(400, "invalid_request_error", `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`);
    }
    const prompt = promptTokens(json);
    if (prompt + Number(json.max_tokens) > window) {
      return answer(400, "invalid_request_error", `prompt is too long: ${prompt} tokens > ${window - Number(json.max_tokens)} maximum`);
    }
    const measured = options.measureUsage ? cache.measure(json) : undefined;

    const scripted = queue.shift();
    // Not retryable, so a test that scripted too few responses fails at once instead of after backoff.
    if (!scripted) return answer(500, "api_error", "fake-anthropic: no scripted response left", { "x-should-retry": "false" });
    if (scripted.kind === "http_error") return answer(scripted.status, scripted.errorType, scripted.message, scripted.headers);

    record.status = 200;
    await streamResponse(res, scripted, (body as { model: string }).model, measured);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...responses) => void queue.push(...responses),
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const apiKey = headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey) return apiKey;
  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "");
  return bearer?.[1];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  const requestId = `req_${randomUUID().replaceAll("-", "")}`;
  res.writeHead(status, { "content-type": "application/json", "request-id": requestId, ...headers });
  res.end(JSON.stringify({ type: "error", error: { type, message }, request_id: requestId }));
}

// ——— Streaming ———

async function streamResponse(res: ServerResponse, scripted: Exclude<FakeResponse, { kind: "http_error" }>, model: string, measured?: MeasuredUsage): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": `req_${randomUUID().replaceAll("-", "")}` });
  const send = (type: string, data: Record<string, unknown> = {}) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const usage = scripted.usage ?? {};
  const chunkCount = scripted.blocks.reduce((sum, block) => sum + (block.type === "tool_use" ? block.inputChunks.length : block.chunks.length), 0);
  const cumulative = {
    input_tokens: measured?.input ?? usage.input ?? 10,
    cache_read_input_tokens: measured?.cacheRead ?? usage.cacheRead ?? 0,
    cache_creation_input_tokens: measured?.cacheWrite ?? usage.cacheWrite ?? 0,
  };

  send("message_start", {
    message: {
      id: `msg_${randomUUID().replaceAll("-", "")}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...cumulative, output_tokens: 1 },
    },
  });
  if (scripted.blocks.length === 0) send("ping");
  scripted.blocks.forEach((block, index) => {
    if (block.type === "text") {
      send("content_block_start", { index, content_block: { type: "text", text: "" } });
      if (index === 0) send("ping");
      for (const text of block.chunks) send("content_block_delta", { index, delta: { type: "text_delta", text } });
    } else if (block.type === "thinking") {
      send("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
      if (index === 0) send("ping");
      for (const thinking of block.chunks) send("content_block_delta", { index, delta: { type: "thinking_delta", thinking } });
      send("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature ?? "c2lnbmF0dXJl" } });
    } else {
      send("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } });
      if (index === 0) send("ping");
      for (const partial_json of block.inputChunks) send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    }
    send("content_block_stop", { index });
  });

  if (scripted.kind === "stream_error") {
    send("error", { error: { type: scripted.errorType, message: scripted.message } });
    res.end();
    return;
  }
  if (scripted.cut) {
    res.end();
    return;
  }
  if (scripted.hang) {
    await new Promise<void>((resolve) => res.on("close", resolve));
    return;
  }
  send("message_delta", {
    delta: { stop_reason: scripted.stopReason ?? "end_turn", stop_sequence: null },
    usage: { ...cumulative, output_tokens: usage.output ?? chunkCount + 1 },
  });
  send("message_stop");
  res.end();
}

// ——— Validation, as the real service does it ———

const toolName = /^[a-zA-Z0-9_-]{1,64}$/;

const textBlock = z.object({ type: z.literal("text"), text: z.string() });
const block = z.discriminatedUnion("type", [
  textBlock,
  z.object({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.object({ type: z.literal("redacted_thinking"), data: z.string() }),
  z.object({ type: z.literal("tool_use"), id: z.string().min(1), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  z.object({
    type: z.literal("tool_result"),
    tool_use_id: z.string().min(1),
    content: z.union([z.string(), z.array(textBlock)]).optional(),
    is_error: z.boolean().optional(),
  }),
]);
type Block = z.infer<typeof block>;

const requestSchema = z.object({
  model: z.string().min(1),
  max_tokens: z.number().int().min(1),
  messages: z.array(z.object({ role: z.enum(["user", "assistant"]), content: z.union([z.string(), z.array(block)]) })),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  tools: z
    .array(z.object({ name: z.string(), description: z.string().optional(), input_schema: z.looseObject({ type: z.literal("object") }) }))
    .optional(),
  stream: z.boolean().optional(),
});

/** The first reason the real API would refuse this body, worded like it, or null. */
export function validateRequest(body: unknown): string | null {
  const parsed = requestSchema.safeParse(body, { error: (issue) => (issue.input === undefined ? "Field required" : undefined) });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `${issue.path.join(".")}: ${issue.message}`;
  }
  const request = parsed.data;
  if (request.stream !== true) return "fake-anthropic only implements `stream: true`";

  const names = new Set<string>();
  for (const [index, tool] of (request.tools ?? []).entries()) {
    if (!toolName.test(tool.name)) return `tools.${index}.name: String should match pattern '${toolName.source}'`;
    if (names.has(tool.name)) return "tools: Tool names must be unique.";
    names.add(tool.name);
  }

  const { messages } = request;
  if (messages.length === 0) return "messages: at least one message is required";
  if (messages[0]!.role !== "user") return 'messages: first message must use the "user" role';

  const contents: Block[][] = messages.map((message) => (typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content));
  for (const [i, message] of messages.entries()) {
    const content = contents[i]!;
    if (i > 0 && messages[i - 1]!.role === message.role) return 'messages: roles must alternate between "user" and "assistant"';
    if (content.length === 0) return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    for (const [j, item] of content.entries()) {
      const at = `messages.${i}.content.${j}`;
      if (item.type === "text" && item.text === "") return `${at}.text: text content blocks must be non-empty`;
      if (item.type === "text" && item.text.trim() === "") return `${at}.text: text content blocks must contain non-whitespace text`;
      if (item.type === "tool_use" && message.role !== "assistant") return `${at}: tool_use blocks can only be in assistant messages`;
      if (item.type === "tool_use" && !toolName.test(item.name)) return `${at}.name: String should match pattern '${toolName.source}'`;
      if (item.type === "tool_result" && message.role !== "user") return `${at}: tool_result blocks can only be in user messages`;
    }

    if (message.role === "user") {
      const firstOther = content.findIndex((item) => item.type !== "tool_result");
      if (firstOther !== -1 && content.slice(firstOther).some((item) => item.type === "tool_result")) {
        return `messages.${i}: tool_result blocks must come before any other content in a user message`;
      }
      const asked = new Set(i > 0 ? contents[i - 1]!.flatMap((item) => (item.type === "tool_use" ? [item.id] : [])) : []);
      for (const [j, item] of content.entries()) {
        if (item.type === "tool_result" && !asked.has(item.tool_use_id)) {
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${item.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    } else {
      const answered = new Set((contents[i + 1] ?? []).flatMap((item) => (item.type === "tool_result" ? [item.tool_use_id] : [])));
      const missing = content.flatMap((item) => (item.type === "tool_use" && !answered.has(item.id) ? [item.id] : []));
      if (missing.length > 0) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
    }
  }
  return null;
}
