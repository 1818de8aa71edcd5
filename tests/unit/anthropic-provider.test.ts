import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicProvider, createToolNameMap, type AnthropicProviderOptions } from "../../lib/models/anthropic";
import { ModelError, type ModelEvent, type ModelRequest, type Usage } from "../../lib/models/types";
import { startFakeAnthropic, validateRequest, type FakeAnthropic } from "../support/fake-anthropic";

const API_KEY = "sk-ant-test-0123456789-SECRET";

let fake: FakeAnthropic;

beforeAll(async () => {
  fake = await startFakeAnthropic({ apiKey: API_KEY });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());
afterEach(() => {
  // Every scripted response was meant to be used.
  expect(fake.pending()).toBe(0);
});

function provider(options: Partial<AnthropicProviderOptions> = {}) {
  return createAnthropicProvider({ apiKey: API_KEY, baseURL: fake.baseURL, retryBaseDelayMs: 1, ...options });
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "claude-test-1",
    system: "You are a test agent.",
    messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    tools: [],
    maxTokens: 1024,
    ...overrides,
  };
}

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const seen: ModelEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

/** Runs the stream to its failure, keeping what arrived before it. */
async function failure(events: AsyncIterable<ModelEvent>): Promise<{ error: unknown; seen: ModelEvent[] }> {
  const seen: ModelEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { error, seen };
  }
  throw new Error(`The stream did not fail; it gave ${JSON.stringify(seen)}`);
}

function totalUsage(events: ModelEvent[]): Usage {
  const total: Usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  for (const event of events) {
    if (event.type !== "usage") continue;
    for (const key of Object.keys(total) as (keyof Usage)[]) total[key] += event.usage[key] ?? 0;
  }
  return total;
}

const fetchTool = { name: "http.fetch", description: "Fetch a URL", inputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"] } };
const noteTool = { name: "memory_note", description: "Keep a note", inputSchema: { type: "object", properties: { text: { type: "string" } } } };

describe("Anthropic provider streaming", () => {
  it("streams text in several deltas, in order, then usage and the stop reason", async () => {
    fake.enqueue({ kind: "reply", blocks: [{ type: "text", chunks: ["Hel", "lo, ", "world"] }], usage: { input: 12, output: 7 } });

    const events = await collect(provider().stream(request()));

    expect(events).toEqual([
      { type: "usage", usage: { inputTokens: 12, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { type: "text", delta: "Hel" },
      { type: "text", delta: "lo, " },
      { type: "text", delta: "world" },
      { type: "usage", usage: { outputTokens: 6 } },
      { type: "stop", reason: "end_turn" },
    ]);
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      model: "claude-test-1",
      max_tokens: 1024,
      system: [{ type: "text", text: "You are a test agent.", cache_control: { type: "ephemeral" } }],
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: "Hello", cache_control: { type: "ephemeral" } }] }],
    });
    expect(sent.body).not.toHaveProperty("tools");
    const auth = sent.headers["x-api-key"] ?? sent.headers.authorization;
    expect(String(auth)).toContain(API_KEY);
  });

  it("streams thinking before the answer and ignores the signature", async () => {
    fake.enqueue({
      kind: "reply",
      blocks: [
        { type: "thinking", chunks: ["Let me ", "think."], signature: "sig-abc" },
        { type: "text", chunks: ["Done."] },
      ],
    });

    const events = await collect(provider().stream(request()));

    expect(events.filter((event) => event.type === "thinking" || event.type === "text")).toEqual([
      { type: "thinking", delta: "Let me " },
      { type: "thinking", delta: "think." },
      { type: "text", delta: "Done." },
    ]);
    expect(JSON.stringify(events)).not.toContain("sig-abc");
  });

  it("assembles a tool call from chunked input JSON and gives back the dotted tool name", async () => {
    fake.enqueue({
      kind: "reply",
      blocks: [
        { type: "text", chunks: ["Fetching."] },
        { type: "tool_use", id: "toolu_01", name: "http_fetch", inputChunks: ["", '{"url": "https://exa', 'mple.com/a?b=1", "he', 'aders": {"x": [1, 2]}}'] },
      ],
      stopReason: "tool_use",
    });

    const events = await collect(provider().stream(request({ tools: [fetchTool, noteTool] })));

    const calls = events.filter((event) => event.type === "tool_call");
    expect(calls).toEqual([{ type: "tool_call", id: "toolu_01", name: "http.fetch", input: { url: "https://example.com/a?b=1", headers: { x: [1, 2] } } }]);
    expect(events.at(-1)).toEqual({ type: "stop", reason: "tool_use" });
    expect(fake.requests[0]!.body).toMatchObject({
      tools: [
        { name: "http_fetch", description: "Fetch a URL", input_schema: fetchTool.inputSchema },
        { name: "memory_note", description: "Keep a note", input_schema: noteTool.inputSchema },
      ],
    });
  });

  it("reads an empty tool input as {}", async () => {
    fake.enqueue({ kind: "reply", blocks: [{ type: "tool_use", id: "toolu_02", name: "memory_note", inputChunks: [] }], stopReason: "tool_use" });

    const events = await collect(provider().stream(request({ tools: [noteTool] })));

    expect(events.find((event) => event.type === "tool_call")).toEqual({ type: "tool_call", id: "toolu_02", name: "memory_note", input: {} });
  });

  it.each([
    ["broken JSON", ['{"url": "https://exa', "mple.com"]],
    ["a non-object", ['["https://example.com"]']],
  ])("refuses a tool input that is %s with bad_tool_input", async (_label, inputChunks) => {
    fake.enqueue({ kind: "reply", blocks: [{ type: "tool_use", id: "toolu_03", name: "http_fetch", inputChunks }], stopReason: "tool_use" });

    const { error } = await failure(provider().stream(request({ tools: [fetchTool] })));

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: "bad_tool_input" });
    expect((error as ModelError).message).toContain("http.fetch");
  });

  it("reports usage as increments that sum to the message totals, cache included", async () => {
    fake.enqueue({ kind: "reply", blocks: [{ type: "text", chunks: ["a", "b"] }], usage: { input: 40, output: 25, cacheRead: 300, cacheWrite: 50 }, stopReason: "max_tokens" });

    const events = await collect(provider().stream(request()));

    // The fake repeats the cumulative input and cache counts in message_delta, as the API does.
    expect(totalUsage(events)).toEqual({ inputTokens: 40, outputTokens: 25, cacheReadTokens: 300, cacheWriteTokens: 50 });
    expect(events.filter((event) => event.type === "usage")).toHaveLength(2);
    expect(events.at(-1)).toEqual({ type: "stop", reason: "max_tokens" });
  });

  it("fails clearly when the stream ends before message_stop", async () => {
    fake.enqueue({ kind: "reply", blocks: [{ type: "text", chunks: ["partial"] }], cut: true });

    const { error, seen } = await failure(provider().stream(request()));

    expect(seen).toContainEqual({ type: "text", delta: "partial" });
    expect(error).toMatchObject({ name: "ModelError", code: "provider_stream_incomplete" });
  });
});

describe("Anthropic provider errors and retries", () => {
  it("retries a 529 overloaded answer and then succeeds", async () => {
    fake.enqueue(
      { kind: "http_error", status: 529, errorType: "overloaded_error", message: "Overloaded", headers: { "retry-after-ms": "5" } },
      { kind: "reply", blocks: [{ type: "text", chunks: ["ok"] }] },
    );

    const events = await collect(provider().stream(request()));

    expect(events).toContainEqual({ type: "text", delta: "ok" });
    expect(fake.requests.map((sent) => sent.status)).toEqual([529, 200]);
  });

  it("retries a 429 that says retry-after: 0", async () => {
    fake.enqueue(
      { kind: "http_error", status: 429, errorType: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit", headers: { "retry-after": "0" } },
      { kind: "reply", blocks: [{ type: "text", chunks: ["ok"] }] },
    );

    const events = await collect(provider().stream(request()));

    expect(events.at(-1)).toEqual({ type: "stop", reason: "end_turn" });
    expect(fake.requests.map((sent) => sent.status)).toEqual([429, 200]);
  });

  it("gives up after maxRetries and reports the rate limit", async () => {
    const limited = { kind: "http_error", status: 429, errorType: "rate_limit_error", message: "Slow down", headers: { "retry-after-ms": "1" } } as const;
    fake.enqueue(limited, limited);

    const { error } = await failure(provider({ maxRetries: 1 }).stream(request()));

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: "provider_rate_limited", options: { status: 429, retryable: true } });
    expect((error as ModelError).message).toContain("rate_limit_error");
    expect((error as ModelError).message).toContain("Slow down");
    expect(fake.requests).toHaveLength(2);
  });

  it("fails with the API's reason when an error event arrives after some text, without re-sending", async () => {
    fake.enqueue({ kind: "stream_error", blocks: [{ type: "text", chunks: ["Half an ans"] }], errorType: "overloaded_error", message: "Overloaded" });

    const { error, seen } = await failure(provider().stream(request()));

    expect(seen).toContainEqual({ type: "text", delta: "Half an ans" });
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: "provider_overloaded" });
    expect((error as ModelError).message).toContain("overloaded_error");
    expect((error as ModelError).message).toContain("Overloaded");
    expect(fake.requests).toHaveLength(1);
  });

  it("re-sends the call when the stream is overloaded before any output, reporting usage once", async () => {
    fake.enqueue(
      { kind: "stream_error", blocks: [], errorType: "overloaded_error", message: "Overloaded", usage: { input: 99 } },
      { kind: "reply", blocks: [{ type: "text", chunks: ["fine"] }], usage: { input: 20, output: 3 } },
    );

    const events = await collect(provider().stream(request()));

    expect(events.filter((event) => event.type === "text")).toEqual([{ type: "text", delta: "fine" }]);
    expect(totalUsage(events)).toMatchObject({ inputTokens: 20, outputTokens: 3 });
    expect(fake.requests).toHaveLength(2);
  });

  it("does not re-send an early stream error that is not an overload", async () => {
    fake.enqueue({ kind: "stream_error", blocks: [], errorType: "api_error", message: "Internal server error" });

    const { error, seen } = await failure(provider().stream(request()));

    expect(seen).toEqual([]);
    expect(error).toMatchObject({ code: "provider_stream_error" });
    expect((error as ModelError).message).toContain("api_error: Internal server error");
    expect(fake.requests).toHaveLength(1);
  });

  it("refuses a wrong key as provider_auth without repeating the key", async () => {
    const { error } = await failure(createAnthropicProvider({ apiKey: `${API_KEY}-wrong`, baseURL: fake.baseURL }).stream(request()));

    expect(error).toMatchObject({ code: "provider_auth", options: { status: 401 } });
    expect((error as ModelError).message).toContain("invalid x-api-key");
    expect(fake.requests).toHaveLength(1);
  });

  it("never lets the API key into an error message, even when the service echoes it", async () => {
    fake.enqueue({ kind: "http_error", status: 403, errorType: "permission_error", message: `Key ${API_KEY} may not use this model` });

    const { error } = await failure(provider().stream(request()));

    expect(error).toMatchObject({ code: "provider_auth" });
    const text = `${(error as Error).message} ${String(error)} ${JSON.stringify(error)}`;
    expect(text).toContain("may not use this model");
    expect(text).not.toContain(API_KEY);
  });
});

describe("Anthropic provider conversation mapping", () => {
  it("sends a follow-up with tool_use/tool_result pairs the service accepts", async () => {
    fake.enqueue({ kind: "reply", blocks: [{ type: "text", chunks: ["It says hello."] }] });

    const events = await collect(
      provider().stream(
        request({
          tools: [fetchTool, noteTool],
          messages: [
            { role: "user", content: [{ type: "text", text: "Fetch example.com" }, { type: "text", text: "" }] },
            {
              role: "assistant",
              content: [
                { type: "text", text: "" },
                { type: "tool_use", id: "toolu_a", name: "http.fetch", input: { url: "https://example.com" } },
                { type: "tool_use", id: "toolu_b", name: "memory_note", input: { text: "fetched" } },
              ],
            },
            {
              role: "user",
              content: [
                { type: "text", text: "Here you go." },
                { type: "tool_result", toolUseId: "toolu_a", content: "<h1>hello</h1>" },
                { type: "tool_result", toolUseId: "toolu_b", content: "no space left", isError: true },
              ],
            },
            // An assistant turn with nothing to say: dropped, and the user turns around it merged.
            { role: "assistant", content: [{ type: "text", text: "  " }] },
            { role: "user", content: [{ type: "text", text: "Well?" }] },
          ],
        }),
      ),
    );

    expect(events.at(-1)).toEqual({ type: "stop", reason: "end_turn" });
    expect(fake.requests[0]!.status).toBe(200);
    expect((fake.requests[0]!.body as { messages: unknown }).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Fetch example.com" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "toolu_a", name: "http_fetch", input: { url: "https://example.com" } },
          { type: "tool_use", id: "toolu_b", name: "memory_note", input: { text: "fetched" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "<h1>hello</h1>", is_error: false },
          { type: "tool_result", tool_use_id: "toolu_b", content: "no space left", is_error: true },
          { type: "text", text: "Here you go." },
          { type: "text", text: "Well?", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
    // The tools are cached up to the last one, before the system prompt and the conversation.
    const tools = (fake.requests[0]!.body as { tools: { name: string; cache_control?: unknown }[] }).tools;
    expect(tools.map((t) => [t.name, t.cache_control ?? null])).toEqual([
      ["http_fetch", null],
      ["memory_note", { type: "ephemeral" }],
    ]);
  });

  it("marks nothing as cacheable when prompt caching is off", async () => {
    fake.enqueue({ kind: "reply", blocks: [{ type: "text", chunks: ["Plain."] }] });
    await collect(provider({ promptCaching: false }).stream(request({ tools: [fetchTool] })));
    expect(JSON.stringify(fake.requests[0]!.body)).not.toContain("cache_control");
    expect(fake.requests[0]!.body).toMatchObject({ system: [{ type: "text", text: "You are a test agent." }] });
  });

  it("surfaces the fake's 400 for a tool_result without its tool_use as provider_rejected", async () => {
    const { error } = await failure(
      provider().stream(
        request({
          messages: [
            { role: "user", content: [{ type: "text", text: "Hi" }] },
            { role: "assistant", content: [{ type: "text", text: "Hello" }] },
            { role: "user", content: [{ type: "tool_result", toolUseId: "toolu_ghost", content: "?" }] },
          ],
        }),
      ),
    );

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: "provider_rejected", options: { status: 400 } });
    expect((error as ModelError).message).toContain("invalid_request_error");
    expect((error as ModelError).message).toContain("toolu_ghost");
    expect(fake.requests.map((sent) => sent.status)).toEqual([400]);
  });
});

describe("Anthropic provider aborts", () => {
  it("throws an AbortError when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();

    const { error } = await failure(provider().stream(request({ signal: controller.signal })));

    expect(error).toMatchObject({ name: "AbortError" });
    expect(error).not.toBeInstanceOf(ModelError);
    expect(fake.requests).toHaveLength(0);
  });

  it("throws an AbortError when aborted mid-stream", async () => {
    fake.enqueue({ kind: "reply", blocks: [{ type: "text", chunks: ["first"] }], hang: true });
    const controller = new AbortController();
    const seen: ModelEvent[] = [];

    const run = async () => {
      for await (const event of provider().stream(request({ signal: controller.signal }))) {
        seen.push(event);
        if (event.type === "text") controller.abort();
      }
    };

    await expect(run()).rejects.toMatchObject({ name: "AbortError" });
    expect(seen.filter((event) => event.type === "text")).toEqual([{ type: "text", delta: "first" }]);
  });
});

describe("tool name mapping", () => {
  it("keeps valid names and maps the others reversibly, one-to-one", () => {
    const longName = `skill.${"x".repeat(80)}`;
    const names = ["http.fetch", "http_fetch", "http:fetch", "memory_note", longName, "send email"];
    const map = createToolNameMap(names);
    const wires = names.map((name) => map.toWire(name));

    expect(map.toWire("http_fetch")).toBe("http_fetch");
    expect(map.toWire("memory_note")).toBe("memory_note");
    expect(map.toWire("send email")).toBe("send_email");
    expect(new Set(wires).size).toBe(names.length);
    for (const wire of wires) expect(wire).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    for (const name of names) expect(map.fromWire(map.toWire(name))).toBe(name);
  });

  it("maps the same set of names the same way whatever their order", () => {
    const names = ["a.b", "a:b", "a_b"];
    const forward = createToolNameMap(names);
    const backward = createToolNameMap([...names].reverse());

    for (const name of names) expect(backward.toWire(name)).toBe(forward.toWire(name));
  });
});

describe("the fake validates like the service", () => {
  const ok = { model: "m", max_tokens: 10, stream: true, messages: [{ role: "user", content: "Hi" }] };
  const toolPair = [
    { role: "user", content: "Go" },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "x", input: {} }] },
  ];

  it("accepts a well-formed request", () => {
    expect(validateRequest(ok)).toBeNull();
  });

  it.each<[string, unknown, string]>([
    ["no model", { ...ok, model: undefined }, "model: Field required"],
    ["no max_tokens", { ...ok, max_tokens: undefined }, "max_tokens: Field required"],
    ["no messages", { ...ok, messages: undefined }, "messages: Field required"],
    ["an empty content array", { ...ok, messages: [{ role: "user", content: [] }] }, "non-empty content"],
    ["an empty text block", { ...ok, messages: [{ role: "user", content: [{ type: "text", text: "" }] }] }, "must be non-empty"],
    ["a dotted tool name", { ...ok, tools: [{ name: "http.fetch", input_schema: { type: "object" } }] }, "tools.0.name: String should match pattern"],
    ["an unanswered tool_use", { ...ok, messages: [...toolPair, { role: "user", content: "Done?" }] }, "without `tool_result` blocks immediately after: t1"],
    ["a tool_use with no next message", { ...ok, messages: toolPair }, "without `tool_result` blocks immediately after: t1"],
    [
      "a tool_result for another id",
      {
        ...ok,
        messages: [
          ...toolPair,
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "t1", content: "r" },
              { type: "tool_result", tool_use_id: "t2", content: "r" },
            ],
          },
        ],
      },
      "unexpected `tool_use_id`",
    ],
    ["two user turns in a row", { ...ok, messages: [ok.messages[0], ok.messages[0]] }, "roles must alternate"],
    ["an assistant first", { ...ok, messages: [{ role: "assistant", content: "Hi" }] }, 'first message must use the "user" role'],
  ])("refuses %s", (_label, body, reason) => {
    expect(validateRequest(body)).toContain(reason);
  });

  it("answers 401 without a key and 400 for an invalid body over HTTP", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${fake.baseURL}/v1/messages`, { method: "POST", headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers }, body: JSON.stringify({ ...ok, model: undefined }) });

    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });

    const invalid = await post({ "x-api-key": API_KEY });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: "model: Field required" } });
  });
});
