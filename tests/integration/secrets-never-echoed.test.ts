import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { GET as listConnectionsRoute, POST as saveConnectionRoute } from "../../app/api/connections/route";
import { encryptSecret } from "../../lib/crypto";
import { agentMemories, approvals, connections, messages, steps } from "../../lib/db/schema";
import { errorResponse } from "../../lib/http/errors";
import { createAnthropicProvider } from "../../lib/models/anthropic";
import type { ModelEvent, ModelProvider, ModelRequest } from "../../lib/models/types";
import { createChat } from "../../lib/chats/chats";
import { decideApproval } from "../../lib/safety/approvals";
import { REDACTED } from "../../lib/secret-redactor";
import { builtinTools, createToolRegistry, type AnyTool } from "../../lib/tools/registry";
import { demoOwner, makeUser } from "../support/fixtures";
import { getRunRow, makeAgent, routeModel, waitForRun } from "../support/runtime";
import { startFakeAnthropic } from "../support/fake-anthropic";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";

/** Has the Slack shape, so it passes the check on save; the fake Slack below echoes it back in every form. */
const TOKEN = "xoxb-4242424242-1717171717-SeCrEtToKeNvAlUe9";
const forms = [TOKEN, encodeURIComponent(TOKEN), Buffer.from(TOKEN).toString("base64").replace(/=+$/, ""), "SeCrEtToKeNvAlUe9"];

function expectNoSecret(where: string, value: unknown) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  for (const form of forms) expect(text, `${where} quotes the token`).not.toContain(form);
}

/**
 * A model that calls one tool, then answers with exactly the tool result it
 * was given: whatever reaches the model's context reaches the reply.
 */
function echoModel(call: { name: string; input: Record<string, unknown> }): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: "echo",
    requests,
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const last = request.messages.at(-1)!.content.find((b) => b.type === "tool_result");
      if (!last) {
        yield { type: "tool_call", id: `call_${requests.length}`, ...call };
        yield { type: "stop", reason: "tool_use" };
        return;
      }
      yield { type: "text", delta: `The tool said: ${last.type === "tool_result" ? last.content : ""}` };
      yield { type: "usage", usage: { inputTokens: 10, outputTokens: 10 } };
      yield { type: "stop", reason: "end_turn" };
    },
  };
}

/** A tool that crashes the way a header builder does: with the credential quoted in its message. */
const headerCrashTool: AnyTool = {
  ...builtinTools.find((t) => t.name === "http.fetch")!,
  name: "test.header_crash",
  effects: ["reads_external"],
  taint: () => null,
  async execute(ctx) {
    const connection = await ctx.credential("slack");
    throw new TypeError(`Headers.append: "Bearer ${connection?.secret}" is an invalid header value.`);
  },
};

describe("secrets are never echoed", () => {
  const server = useTestServer();
  let slack: http.Server;
  let slackOrigin = "";
  let canary: http.Server;
  let canaryOrigin = "";
  const canaryHits: string[] = [];
  let logged: MockInstance<typeof console.error>;

  const listen = async (s: http.Server) => {
    await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    // A Slack that refuses the call and quotes the Authorization header back, raw, URL-encoded and in base64.
    slack = http.createServer((req, res) => {
      const auth = req.headers.authorization ?? "";
      const token = auth.replace(/^Bearer /, "");
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: false, error: `invalid_auth for ${auth} (${encodeURIComponent(token)}) [${Buffer.from(token).toString("base64")}]` }));
    });
    canary = http.createServer((req, res) => {
      canaryHits.push(req.url ?? "");
      res.end("{}");
    });
    slackOrigin = await listen(slack);
    canaryOrigin = await listen(canary);
    process.env.CLAWDECK_SLACK_BASE_URL = slackOrigin;
    const s = server();
    s.runtime.deps.fetchAllow = [slackOrigin, canaryOrigin].map((o) => new URL(o).host);
    s.runtime.deps.tools = createToolRegistry([...builtinTools, headerCrashTool]);
  });

  afterAll(async () => {
    delete process.env.CLAWDECK_SLACK_BASE_URL;
    server().runtime.deps.fetchAllow = [];
    await Promise.all([slack, canary].map((s) => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))));
  });

  beforeEach(() => {
    logged = vi.spyOn(console, "error").mockImplementation(() => {});
  });
  afterEach(() => {
    logged.mockRestore();
  });

  async function manager() {
    const s = server();
    const owner = await demoOwner(s.db);
    return { s, owner, cookie: await sessionCookie(s, owner) };
  }

  async function saveToken(cookie: string, body: Record<string, unknown>) {
    return saveConnectionRoute(jsonRequest("/api/connections", { method: "POST", cookie, body: { provider: "slack", ...body } }));
  }

  async function slackRowCount(workspaceId: string) {
    const [row] = await server().db.select({ n: sql<number>`count(*)::int` }).from(connections).where(eq(connections.workspaceId, workspaceId));
    return row!.n;
  }

  it("a Slack token with a bad character is refused on save (422, or 400 for a NUL), the response does not quote it, and nothing is stored", async () => {
    const { owner, cookie } = await manager();
    const before = await slackRowCount(owner.workspaceId);
    const cases: [string, number, string][] = [
      // A NUL is refused for every field of every route before the connection is even looked at.
      [`${TOKEN}\u0000x`, 400, "bad_request:nul"],
      ...[`xoxb-4242424242\u00e9-SeCrEtToKeNvAlUe9`, `xoxb-4242424242 SeCrEtToKeNvAlUe9`, `Bearer ${TOKEN}`, "xoxb-42", `${TOKEN}${"9".repeat(600)}`].map(
        (bad): [string, number, string] => [bad, 422, "unprocessable:connection_secret"],
      ),
    ];
    for (const [bad, status, code] of cases) {
      const response = await saveToken(cookie, { secret: bad });
      const text = await response.text();
      expect(response.status).toBe(status);
      expect(JSON.parse(text).code).toBe(code);
      expect(text).not.toContain("SeCrEtToKeNvAlUe9");
      expect(text).not.toContain("4242424242");
    }
    expect(await slackRowCount(owner.workspaceId)).toBe(before);
    expectNoSecret("the log", logged.mock.calls);
  });

  it("a connection whose baseUrl points at 127.0.0.1 or the metadata address is refused on save", async () => {
    const { owner, cookie } = await manager();
    const before = await slackRowCount(owner.workspaceId);
    for (const baseUrl of [canaryOrigin, "http://169.254.169.254/latest", "https://slack.com.evil.test", "not a url"]) {
      const response = await saveToken(cookie, { secret: TOKEN, baseUrl });
      expect(response.status).toBe(422);
      expect((await response.json()).code).toBe("unprocessable:connection_base_url");
    }
    expect(await slackRowCount(owner.workspaceId)).toBe(before);
    const ok = await saveToken(cookie, { secret: TOKEN, baseUrl: `${slackOrigin}/` });
    expect(ok.status).toBe(201);
    const listed = await (await listConnectionsRoute(jsonRequest("/api/connections", { cookie }))).text();
    expect(listed).toContain(slackOrigin);
    expectNoSecret("the connection list", listed);
  });

  async function runTool(call: { name: string; input: Record<string, unknown> }, approve: boolean) {
    const { s, owner } = await manager();
    const model = echoModel(call);
    routeModel(s, "echo", model);
    const agent = await makeAgent(s.db, owner.workspaceId, { model: "echo", tools: [call.name] });
    const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
    const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "go" });
    if (approve) {
      let approvalId: string | undefined;
      for (let i = 0; i < 400 && !approvalId; i++) {
        [{ id: approvalId } = { id: undefined }] = await s.db.select({ id: approvals.id }).from(approvals).where(eq(approvals.runId, runId));
        if (!approvalId) await new Promise((r) => setTimeout(r, 25));
      }
      const reviewer = await makeUser(s.db, owner.workspaceId, "reviewer");
      await decideApproval(s.db, s.bus, s.runtime.deps.tools, { workspaceId: owner.workspaceId, approvalId: approvalId!, decider: { userId: reviewer.id, role: "reviewer" }, decision: "approve" });
      await s.runtime.resumeRun(runId);
    }
    const events = await waitForRun(s.db, runId);
    const run = await getRunRow(s.db, runId);
    const stepRows = await s.db.select().from(steps).where(eq(steps.runId, runId));
    const replies = await s.db.select({ content: messages.content }).from(messages).where(eq(messages.runId, runId));
    const memories = await s.db.select({ content: agentMemories.content }).from(agentMemories).where(eq(agentMemories.runId, runId));
    return { s, owner, model, events, run, stepRows, replies, memories, runId };
  }

  function expectNowhere(result: Awaited<ReturnType<typeof runTool>>) {
    expectNoSecret("the step rows (error and output)", result.stepRows);
    expectNoSecret("the run events journal", result.events);
    expectNoSecret("the run row", result.run);
    expectNoSecret("the model's requests", result.model.requests);
    expectNoSecret("the agent's reply", result.replies);
    expectNoSecret("the agent's memory", result.memories);
    expectNoSecret("the log", logged.mock.calls);
  }

  it("slack.post against a Slack that echoes the Authorization header: the token appears in no row, event, model request, reply or log", async () => {
    const { owner, cookie, s } = await manager();
    expect((await saveToken(cookie, { secret: TOKEN })).status).toBe(201);
    // A row saved before base URLs were checked: it must not be where the token goes.
    await s.db.update(connections).set({ config: { baseUrl: canaryOrigin } }).where(eq(connections.workspaceId, owner.workspaceId));
    const result = await runTool({ name: "slack.post", input: { channel: "#general", text: "hello" } }, true);

    const step = result.stepRows.find((r) => r.tool === "slack.post")!;
    expect(step.status).toBe("failed");
    expect(step.error).toMatch(/^Slack refused the message: invalid_auth for Bearer \[redacted\]/);
    expect(step.error).toContain(REDACTED);
    // The model was told, and its reply repeats what it was told: the redacted text.
    const told = JSON.stringify(result.model.requests.at(-1)!.messages.at(-1));
    expect(told).toContain("invalid_auth");
    expect(result.replies.map((r) => r.content).join("")).toContain(REDACTED);
    expect(canaryHits).toEqual([]);
    expectNowhere(result);
  });

  it("a tool that crashes quoting the credential: the step, journal, model, reply and the crash log line hold no token", async () => {
    const { cookie } = await manager();
    expect((await saveToken(cookie, { secret: TOKEN })).status).toBe(201);
    const result = await runTool({ name: "test.header_crash", input: { url: "https://example.com/" } }, false);

    const step = result.stepRows.find((r) => r.tool === "test.header_crash")!;
    expect(step.status).toBe("failed");
    expect(step.error).toBe(`\`test.header_crash\` failed: Headers.append: "Bearer ${REDACTED}" is an invalid header value.`);
    const crashLines = logged.mock.calls.map((c) => c.join(" ")).filter((line) => line.includes("test.header_crash crashed"));
    expect(crashLines).toHaveLength(1);
    expect(crashLines[0]).toContain("TypeError: Headers.append");
    expectNowhere(result);
  });

  it("a token stored with a bad character (before tokens were checked) is refused at call time without quoting it", async () => {
    const { owner, s } = await manager();
    const broken = `${TOKEN}\n`;
    await s.db
      .update(connections)
      .set({ secret: encryptSecret(broken, s.secrets.encryptionKey) })
      .where(eq(connections.workspaceId, owner.workspaceId));
    const result = await runTool({ name: "slack.post", input: { channel: "#general", text: "hello" } }, true);
    const step = result.stepRows.find((r) => r.tool === "slack.post")!;
    expect(step.status).toBe("failed");
    expect(step.error).toContain("not a valid bot token");
    expectNowhere(result);
  });

  it("a provider error that quotes the API key fails the run with a message that does not carry it", async () => {
    const { s, owner } = await manager();
    const apiKey = "sk-ant-api03-RunErrorKey-0123456789abcdef";
    const fake = await startFakeAnthropic({ apiKey });
    try {
      fake.enqueue({ kind: "http_error", status: 400, errorType: "invalid_request_error", message: `key ${apiKey} / ${Buffer.from(apiKey).toString("base64")} is not allowed here` });
      routeModel(s, "leaky", createAnthropicProvider({ apiKey, baseURL: fake.baseURL, maxRetries: 0 }));
      const agent = await makeAgent(s.db, owner.workspaceId, { model: "leaky", tools: [] });
      const session = await createChat(s.db, { workspaceId: owner.workspaceId, userId: owner.id, agent: { id: agent.id } });
      const { runId } = await s.runtime.startChatRun({ workspaceId: owner.workspaceId, sessionId: session.id, userId: owner.id, text: "hi" });
      const events = await waitForRun(s.db, runId);
      const run = await getRunRow(s.db, runId);
      expect(events.at(-1)?.type).toBe("run_failed");
      expect(run.error).toContain("is not allowed here");
      for (const where of [JSON.stringify(run), JSON.stringify(events), JSON.stringify(logged.mock.calls)]) {
        expect(where).not.toContain(apiKey);
        expect(where).not.toContain(Buffer.from(apiKey).toString("base64").replace(/=+$/, ""));
      }
    } finally {
      await fake.close();
    }
  });

  it("a failed query's log line carries its SQL and error code, not the person's text", async () => {
    const s = server();
    const personal = "Dear diary: the acquisition closes on Friday";
    const error = await s.db.execute(sql`select ${personal}::uuid as id`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    const response = errorResponse(error);
    expect(response.status).toBe(500);
    const lines = logged.mock.calls.map((c) => c.map(String).join(" "));
    expect(lines.some((line) => line.includes("Unhandled error") && line.includes("pg 22P02") && line.includes("::uuid"))).toBe(true);
    for (const line of lines) expect(line).not.toContain("acquisition");
    expect(await response.text()).not.toContain("acquisition");
  });
});
