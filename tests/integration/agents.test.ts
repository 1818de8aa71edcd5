import { asc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog } from "../../lib/db/schema";
import { GET as getAgentRoute, PATCH as patchAgentRoute } from "../../app/api/agents/[id]/route";
import { GET as listAgentsRoute, POST as createAgentRoute } from "../../app/api/agents/route";
import { checkModelSpec, modelConfigFromEnv } from "../../lib/models/registry";
import { demoOwner, makeUser } from "../support/fixtures";
import { jsonRequest, sessionCookie, useTestServer } from "../support/server";

describe("agents", () => {
  const server = useTestServer();
  const agent = (over: Record<string, unknown> = {}) => ({ handle: "relay", name: "Relay", model: "offline", tools: ["http.fetch", "slack.post"], ...over });

  it("a manager creates an agent; the model spec and tools are checked when it is saved", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const ok = await createAgentRoute(jsonRequest("/api/agents", { method: "POST", cookie, body: agent() }));
    expect(ok.status).toBe(201);
    expect((await ok.json()).agent).toMatchObject({ handle: "relay", model: "offline", tools: ["http.fetch", "slack.post"], status: "active" });

    const cases: [Record<string, unknown>, number, string][] = [
      [agent({ handle: "relay" }), 409, "conflict:agent"],
      [agent({ handle: "ghost", model: "glm:glm-4.6" }), 422, "unprocessable:model"],
      [agent({ handle: "ghost", model: "claude-sonnet-4-6" }), 422, "unprocessable:model"],
      [agent({ handle: "ghost", tools: ["shell.rm_rf"] }), 422, "unprocessable:tools"],
      [agent({ handle: "Bad Handle!" }), 400, "bad_request:body"],
    ];
    for (const [body, status, code] of cases) {
      const res = await createAgentRoute(jsonRequest("/api/agents", { method: "POST", cookie, body }));
      expect(res.status).toBe(status);
      expect((await res.json()).code).toBe(code);
    }
    const list = await (await listAgentsRoute(jsonRequest("/api/agents", { cookie }))).json();
    expect(list.agents.map((a: { handle: string }) => a.handle)).toEqual(["atlas", "forge", "herald", "relay", "scout"]);
  });

  it("a member cannot create agents", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const member = await makeUser(s.db, owner.workspaceId, "member");
    const res = await createAgentRoute(jsonRequest("/api/agents", { method: "POST", cookie: await sessionCookie(s, member), body: agent({ handle: "nope" }) }));
    expect(res.status).toBe(403);
  });

  it("named providers come from the environment and are picked by <name>:<model>", () => {
    const config = modelConfigFromEnv({ CLAWDECK_PROVIDER_GLM_BASE_URL: "http://127.0.0.1:9/v1", CLAWDECK_PROVIDER_GLM_API_KEY: "k", ANTHROPIC_API_KEY: "sk" });
    expect(checkModelSpec("glm:glm-4.6", config)).toBeNull();
    expect(checkModelSpec("kimi:kimi-k2", config)).toMatch(/no provider named "kimi" on this server; configured: offline, anthropic, glm\./);
    expect(checkModelSpec("claude-sonnet-4-6", config)).toBeNull();
    expect(checkModelSpec("glm:", config)).toMatch(/Name a model/);
    expect(config.defaultModel).toBe("claude-sonnet-4-6");
    expect(modelConfigFromEnv({}).defaultModel).toBe("offline");
  });

  it("a model no configured provider serves is refused with the truth: what is configured, and never a key a person does not need", () => {
    const bare = modelConfigFromEnv({ CLAWDECK_PROVIDER_GLM_BASE_URL: "http://127.0.0.1:9/v1" });
    expect(checkModelSpec("gpt-4o", bare)).toBe('"gpt-4o" is not a model of any configured provider; configured: offline, glm. Name another provider\'s model as <provider>:<model>.');
    expect(checkModelSpec("claude-sonnet-4-6", bare)).toBe(
      '"claude-sonnet-4-6" is a Claude model, and Claude is not configured on this server (ANTHROPIC_API_KEY is not set); configured: offline, glm.',
    );
    expect(checkModelSpec("anthropic:claude-opus-4", bare)).toBe("Claude is not configured on this server (ANTHROPIC_API_KEY is not set); configured: offline, glm.");
    expect(checkModelSpec("kimi:kimi-k2", modelConfigFromEnv({}))).toBe(
      'There is no provider named "kimi" on this server; configured: offline. An operator adds one with CLAWDECK_PROVIDER_KIMI_BASE_URL.',
    );
  });
});

describe("editing agents", () => {
  const server = useTestServer();

  it("an edit changes only the fields it names: pausing keeps the prompt, tools and colour", async () => {
    const s = server();
    const owner = await demoOwner(s.db);
    const cookie = await sessionCookie(s, owner);
    const created = await (
      await createAgentRoute(
        jsonRequest("/api/agents", { method: "POST", cookie, body: { handle: "keeper", name: "Keeper", model: "offline", tools: ["memory.recall"], systemPrompt: "Keep things.", color: "#112233" } }),
      )
    ).json();
    const id = created.agent.id as string;
    const paused = await patchAgentRoute(jsonRequest(`/api/agents/${id}`, { method: "PATCH", cookie, body: { status: "paused" } }), { params: Promise.resolve({ id }) });
    expect(paused.status).toBe(200);
    const detail = await (await getAgentRoute(jsonRequest(`/api/agents/${id}`, { cookie }), { params: Promise.resolve({ id }) })).json();
    expect(detail.agent).toMatchObject({ status: "paused", systemPrompt: "Keep things.", tools: ["memory.recall"], color: "#112233" });
    const bad = await patchAgentRoute(jsonRequest(`/api/agents/${id}`, { method: "PATCH", cookie, body: { model: "kimi:kimi-k2" } }), { params: Promise.resolve({ id }) });
    expect(bad.status).toBe(422);
    expect((await bad.json()).code).toBe("unprocessable:model");
    const resumed = await patchAgentRoute(jsonRequest(`/api/agents/${id}`, { method: "PATCH", cookie, body: { status: "active" } }), { params: Promise.resolve({ id }) });
    expect(resumed.status).toBe(200);
    await patchAgentRoute(jsonRequest(`/api/agents/${id}`, { method: "PATCH", cookie, body: { description: "Now kept." } }), { params: Promise.resolve({ id }) });
    const audited = await server().db.select().from(auditLog).where(eq(auditLog.targetId, id)).orderBy(asc(auditLog.id));
    expect(audited.map((a) => a.action)).toEqual(["agent.created", "agent.paused", "agent.resumed", "agent.updated"]);
    expect(audited[3]!.detail).toMatchObject({ description: "Now kept." });
  });
});
