import { asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createChat } from "../../lib/chats/chats";
import { agents, usageEvents } from "../../lib/db/schema";
import { creditsFor, priceFor } from "../../lib/billing/prices";
import { createModelResolver } from "../../lib/models/registry";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic";
import { MIN_CACHEABLE_TOKENS } from "../support/fake-anthropic-cache";
import { demoOwner } from "../support/fixtures";
import { getRunRow, makeAgent, waitForRun } from "../support/runtime";
import { useTestServer } from "../support/server";

/** A system prompt long enough to be cached on its own (the API caches nothing shorter than its minimum). */
const LONG_PROMPT = `You keep the team's notes. ${"Write each note as one short sentence, with the date when one is given. ".repeat(80)}`;

describe("prompt caching: a tool loop reads what the call before it wrote, and the ledger charges cache reads and writes at their prices", () => {
  const server = useTestServer();
  let fake: FakeAnthropic;
  let restore: (() => void) | undefined;
  beforeAll(async () => {
    fake = await startFakeAnthropic({ apiKey: "sk-test-key", measureUsage: true });
  });
  afterEach(() => {
    restore?.();
    fake.reset();
  });
  afterAll(() => fake.close());

  /** Routes `claude…` models to the stand-in for this test only. */
  function useFake() {
    const s = server();
    const resolver = createModelResolver({ anthropic: { apiKey: "sk-test-key", baseURL: fake.baseURL }, named: [], offlineDelayMs: 0, defaultModel: "offline" });
    const previous = s.runtime.deps.models;
    s.runtime.deps.models = (spec) => (spec.startsWith("claude") ? resolver(spec) : previous(spec));
    restore = () => {
      s.runtime.deps.models = previous;
    };
    return s;
  }

  it("caches the tools, the system prompt and the conversation; the loop's second call reads the first call's prefix", async () => {
    const s = useFake();
    fake.enqueue(
      { kind: "reply", blocks: [{ type: "tool_use", id: "toolu_01", name: "memory_remember", inputChunks: ['{"text": "demo on Tuesday"}'] }], stopReason: "tool_use", usage: { output: 12 } },
      { kind: "reply", blocks: [{ type: "text", chunks: ["Noted."] }], stopReason: "end_turn", usage: { output: 3 } },
    );
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "claude-sonnet-4-6", tools: ["memory.remember"] });
    await s.db.update(agents).set({ systemPrompt: LONG_PROMPT }).where(eq(agents.id, agent.id));
    const chat = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: chat.id, userId: owner.id, text: "note: the demo is on Tuesday" });
    const events = await waitForRun(s.db, runId);
    expect(events.at(-1)?.type).toBe("run_completed");
    expect(fake.requests.map((r) => r.status)).toEqual([200, 200]);

    // Three breakpoints each time (the API refuses a fifth): the last tool, the system prompt, the conversation's end.
    for (const request of fake.requests) expect(JSON.stringify(request.body).match(/"cache_control"/g)).toHaveLength(3);

    const charged = await s.db.select().from(usageEvents).where(eq(usageEvents.runId, runId)).orderBy(asc(usageEvents.createdAt));
    expect(charged).toHaveLength(2);
    const [first, second] = charged as [typeof charged[0], typeof charged[0]];
    // The first call writes the whole prompt to the cache; the second reads all of it back and pays full price only
    // for the tool call and its result that were added.
    expect(first).toMatchObject({ cacheReadTokens: 0 });
    expect(first.cacheWriteTokens).toBeGreaterThan(MIN_CACHEABLE_TOKENS);
    expect(second.cacheReadTokens).toBe(first.cacheWriteTokens + first.inputTokens);
    expect(second.inputTokens).toBe(0);
    expect(second.cacheWriteTokens).toBeGreaterThan(0);
    expect(second.cacheWriteTokens).toBeLessThan(first.cacheWriteTokens / 4);

    // Charged at the cache prices: reads at a tenth of the input price, writes at 1.25 times it.
    const { price } = priceFor("claude-sonnet-4-6");
    for (const row of charged) {
      const usage = { inputTokens: row.inputTokens, outputTokens: row.outputTokens, cacheReadTokens: row.cacheReadTokens, cacheWriteTokens: row.cacheWriteTokens };
      expect(row.credits).toBe(creditsFor(usage, price));
    }
    const uncached = creditsFor({ inputTokens: second.cacheReadTokens + second.cacheWriteTokens, outputTokens: second.outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 }, price);
    expect(second.credits).toBeLessThan(uncached / 3);
    const run = await getRunRow(s.db, runId);
    expect(run.credits).toBe(first.credits + second.credits);
    // The run's totals and its journal say how much came from the cache: the chat's cost line shows it.
    expect(run).toMatchObject({ cacheReadTokens: second.cacheReadTokens, cacheWriteTokens: first.cacheWriteTokens + second.cacheWriteTokens });
    const usageEventsOfRun = events.filter((e) => e.type === "usage").map((e) => e.payload as { cacheReadTokens?: number; cacheWriteTokens?: number });
    expect(usageEventsOfRun).toEqual([
      expect.objectContaining({ cacheReadTokens: 0, cacheWriteTokens: first.cacheWriteTokens }),
      expect.objectContaining({ cacheReadTokens: second.cacheReadTokens, cacheWriteTokens: second.cacheWriteTokens }),
    ]);
  });

  it("a prompt too long for the model's window is refused with the API's own error, and a fifth breakpoint is refused", async () => {
    const small = await startFakeAnthropic({ apiKey: "k", contextWindow: 2_000 });
    try {
      const call = (body: Record<string, unknown>) =>
        fetch(`${small.baseURL}/v1/messages`, { method: "POST", headers: { "x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json" }, body: JSON.stringify(body) });
      const long = await call({ model: "claude-sonnet-4-6", max_tokens: 100, stream: true, messages: [{ role: "user", content: "word ".repeat(4_000) }] });
      expect(long.status).toBe(400);
      expect(await long.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error", message: expect.stringMatching(/^prompt is too long: \d+ tokens > 1900 maximum$/) } });
      const mark = { type: "ephemeral" };
      const five = await call({
        model: "claude-sonnet-4-6",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: ["a", "b", "c", "d", "e"].map((text) => ({ type: "text", text, cache_control: mark })) }],
      });
      expect(five.status).toBe(400);
      expect((await five.json()).error.message).toBe("A maximum of 4 blocks with cache_control may be provided. Found 5.");
    } finally {
      await small.close();
    }
  });
});
