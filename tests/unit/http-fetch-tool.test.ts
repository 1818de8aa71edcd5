import { describe, expect, it } from "vitest";
import { httpFetchTool } from "../../lib/tools/http-fetch";
import { ToolError, type ToolContext } from "../../lib/tools/types";
import { closedPort, serve } from "../support/network-guard";
import { fetchAllowList } from "../../lib/net/safe-fetch";

describe("http.fetch tool", () => {
  /** What the operator allows (`CLAWDECK_FETCH_ALLOW`), as the runtime hands it to the tool. */
  let allow: string[] = [];
  const context = (signal = new AbortController().signal): ToolContext => ({
    db: undefined as never,
    workspaceId: "ws_1",
    agentId: "agent_1",
    agentHandle: "scout",
    runId: "run_1",
    stepId: "step_1",
    hop: 0,
    userId: null,
    sessionId: null,
    trigger: "agent_message", taint: [],
    credential: async () => null,
    fetchAllow: allow,
    signal,
  });

  const page = `<html><head><title>Local &amp; Friendly</title><script>alert("no")</script></head>
    <body><nav>Menu</nav><main><h1>Welcome</h1><p>Read <em>this</em>.</p></main></body></html>`;

  it("declares itself", () => {
    expect(httpFetchTool.name).toBe("http.fetch");
    expect(httpFetchTool.effects).toEqual(["reads_external"]);
    expect(httpFetchTool.timeoutMs).toBe(15_000);
    expect(httpFetchTool.preview({ url: "https://example.com/a" })).toEqual({
      title: "Fetch a web page",
      fields: [{ label: "URL", value: "https://example.com/a" }],
    });
  });

  it.each([
    ["https://example.com/page?q=1", true],
    ["http://example.com", true],
    ["ftp://example.com/file", false],
    ["file:///etc/passwd", false],
    ["javascript:alert(1)", false],
    ["example.com", false],
  ])("input %s is valid: %s", (url, valid) => {
    expect(httpFetchTool.input.safeParse({ url }).success).toBe(valid);
  });

  it("fetches an allow-listed page as text, tainted by its host", async () => {
    const server = await serve((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page));
    allow = fetchAllowList(` example.org , 127.0.0.1:${server.port}`);
    const input = { url: `${server.origin}/welcome` };
    const output = await httpFetchTool.execute(context(), input);
    expect(output).toEqual({
      url: `${server.origin}/welcome`,
      status: 200,
      contentType: "text/html; charset=utf-8",
      title: "Local & Friendly",
      text: "Welcome\n\nRead this.",
      truncated: false,
    });
    expect(httpFetchTool.taint(input, output)).toBe("web:127.0.0.1");
  });

  it("keeps at most 20,000 characters of text", async () => {
    const server = await serve((_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("z".repeat(25_000)));
    allow = fetchAllowList(`127.0.0.1:${server.port}`);
    const output = await httpFetchTool.execute(context(), { url: server.origin });
    expect(output.text).toHaveLength(20_000);
    expect(output.truncated).toBe(true);
    expect(output.title).toBeUndefined();
  });

  it("surfaces a refusal as a ToolError the model can read", async () => {
    const server = await serve((_req, res) => res.end(page));
    allow = fetchAllowList("");
    const error = await httpFetchTool.execute(context(), { url: `${server.origin}/` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toBe(`Refused to fetch ${server.origin}/: 127.0.0.1 is a loopback address`);
    expect(server.requests).toEqual([]);
  });

  it("surfaces a network failure as a ToolError", async () => {
    const port = await closedPort();
    allow = fetchAllowList("127.0.0.0/8");
    const error = await httpFetchTool.execute(context(), { url: `http://127.0.0.1:${port}/` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(/^Could not fetch .*: the connection was refused$/);
  });

  it("refuses content that is not text", async () => {
    const server = await serve((_req, res) => res.writeHead(200, { "content-type": "image/png" }).end(Buffer.from([0x89, 0x50])));
    allow = fetchAllowList(`127.0.0.1:${server.port}`);
    await expect(httpFetchTool.execute(context(), { url: server.origin })).rejects.toThrow(ToolError);
  });
});
