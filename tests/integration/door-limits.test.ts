import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as mcpGet, POST as mcpPost } from "../../app/api/mcp/route";
import { agentRuns } from "../../lib/db/schema";
import { DOOR_STREAMS_PER_TOKEN } from "../../lib/door/mcp";
import { doorTokenFor } from "../support/door";
import { demoOwner } from "../support/fixtures";
import { makeAgent, settle } from "../support/runtime";
import { APP_ORIGIN, useTestServer } from "../support/server";


const MAX_BODY = 1_048_576;

/** A body of `total` bytes of JSON-looking text in 64 KiB chunks, counting what the server pulled. */
function countedBody(total: number) {
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  const read = { bytes: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (read.bytes >= total) return controller.close();
      read.bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { body, read };
}

const post = (token: string, init: { body: BodyInit; headers?: Record<string, string> }) =>
  mcpPost(
    new Request(new URL("/api/mcp", APP_ORIGIN), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...init.headers },
      body: init.body,
      duplex: "half",
    } as RequestInit),
  );

const call = (id: number, text: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "slack.post", arguments: { channel: "#general", text } } });

describe("the door has the same limits as every route", () => {
  const server = useTestServer({ env: { CLAWDECK_DOOR_WAIT_SECONDS: "4" } });

  async function token() {
    const s = server();
    const owner = await demoOwner(s.db);
    const agent = await makeAgent(s.db, owner.workspaceId, { tools: ["slack.post"] });
    return { agent, token: await doorTokenFor(s.db, agent, owner.id) };
  }

  it("a chunked body of 256 MB is refused with 413 once it passes the cap, after reading about 1 MB of it, and nothing runs", async () => {
    const { agent, token: t } = await token();
    const { body, read } = countedBody(256 * 1024 * 1024);
    const res = await post(t, { body });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { data: { code: "payload_too_large:body" } } });
    expect(read.bytes).toBeLessThanOrEqual(MAX_BODY + 3 * 64 * 1024);
    expect(await server().db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id))).toEqual([]);
  });

  it("a declared Content-Length of 200 MB is refused with 413 before a byte of the body is read", async () => {
    const { token: t } = await token();
    const { body, read } = countedBody(200 * 1024 * 1024);
    const res = await post(t, { body, headers: { "content-length": String(200 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(read.bytes).toBeLessThanOrEqual(64 * 1024);
  });

  it("GET with Accept: text/event-stream is answered at once with 405 and no stream", async () => {
    const { token: t } = await token();
    const res = await mcpGet(new Request(new URL("/api/mcp", APP_ORIGIN), { headers: { authorization: `Bearer ${t}`, accept: "text/event-stream" } }));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST, DELETE");
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  it(`a token holds at most ${DOOR_STREAMS_PER_TOKEN} requests open at once: the next gets 429 with Retry-After and starts no run; once they end, it is served`, async () => {
    const { agent, token: t } = await token();
    // Gated calls: each answer stays open while its approval waits for a reviewer.
    const waiting = Array.from({ length: DOOR_STREAMS_PER_TOKEN }, (_, i) => post(t, { body: call(i + 1, `held ${i}`) }));
    const responses = await Promise.all(waiting);
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    await settle(async () => (await server().db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id))).length === DOOR_STREAMS_PER_TOKEN);
    const refused = await post(t, { body: call(99, "one too many") });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toMatchObject({ error: { data: { code: "rate_limited:door_streams" } } });
    expect(await server().db.select().from(agentRuns).where(eq(agentRuns.agentId, agent.id))).toHaveLength(DOOR_STREAMS_PER_TOKEN);
    // Each held answer ends when its wait does; reading them to the end gives their places back.
    await Promise.all(responses.map((r) => r.text()));
    const again = await post(t, { body: JSON.stringify({ jsonrpc: "2.0", id: 100, method: "tools/list" }) });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain("slack.post");
  });
});
