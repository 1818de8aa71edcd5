import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../../lib/errors";
import { checkConnectionSecret, providerBaseUrl } from "../../lib/connections/connections";
import { FetchHeaderError, safeFetch } from "../../lib/net/safe-fetch";
import { httpFetchTool } from "../../lib/tools/http-fetch";
import { slackPostTool } from "../../lib/tools/slack-post";
import { ToolError, type ToolContext } from "../../lib/tools/types";
import { fetchAllowList } from "../../lib/net/safe-fetch";

const TOKEN = "xoxb-1111111111-2222222222-AbCdEfGhIjKlMnOpQrSt";

interface Fake {
  origin: string;
  port: number;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
}

const servers: http.Server[] = [];

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_q, res) => res.end("{}")): Promise<Fake> {
  const requests: Fake["requests"] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      handler(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, port, requests };
}

afterEach(async () => {
  vi.unstubAllEnvs();
  allow = [];
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))));
});

/** What the operator allows (`CLAWDECK_FETCH_ALLOW`), as the runtime hands it to the tool. */
let allow: string[] = [];

function context(secret: string | null = TOKEN, config: Record<string, string> = {}): ToolContext {
  return {
    db: undefined as never,
    workspaceId: "w",
    agentId: "a",
    agentHandle: "bot",
    runId: "r",
    stepId: "s",
    hop: 0,
    userId: null,
    sessionId: null,
    trigger: "chat", taint: [],
    credential: async () => (secret === null ? null : { secret, config }),
    fetchAllow: allow,
    signal: new AbortController().signal,
  };
}

const errorOf = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error as Error);

describe("every outgoing request of a tool goes through the guarded fetch", () => {
  it("http.fetch refuses the cloud metadata address and a loopback server, sending nothing", async () => {
    const inside = await serve();
    allow = fetchAllowList("");
    for (const url of ["http://169.254.169.254/latest/meta-data/", `${inside.origin}/`]) {
      const error = await errorOf(httpFetchTool.execute(context(), { url }));
      expect(error).toBeInstanceOf(ToolError);
      expect(error?.message).toMatch(/^Refused to fetch /);
    }
    expect(inside.requests).toEqual([]);
  });

  it("slack.post refuses a private Slack address that the allow-list does not name, sending nothing", async () => {
    const inside = await serve();
    allow = fetchAllowList("");
    vi.stubEnv("CLAWDECK_SLACK_BASE_URL", inside.origin);
    const error = await errorOf(slackPostTool.execute(context(), { channel: "#general", text: "hi" }));
    expect(error).toBeInstanceOf(ToolError);
    expect(error?.message).toMatch(/^Slack could not be reached: Refused to fetch .*loopback/);
    expect(inside.requests).toEqual([]);

    vi.stubEnv("CLAWDECK_SLACK_BASE_URL", "http://169.254.169.254");
    const metadata = await errorOf(slackPostTool.execute(context(), { channel: "#general", text: "hi" }));
    expect(metadata?.message).toContain("cloud metadata service");
  });

  it("slack.post sends the token only to the operator's address, ignoring a base URL stored on the connection", async () => {
    const slack = await serve((_q, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, ts: "1.2" })));
    const elsewhere = await serve();
    allow = fetchAllowList(`127.0.0.1:${slack.port},127.0.0.1:${elsewhere.port}`);
    vi.stubEnv("CLAWDECK_SLACK_BASE_URL", slack.origin);
    const output = await slackPostTool.execute(context(TOKEN, { baseUrl: elsewhere.origin }), { channel: "#general", text: "hello" });
    expect(output).toMatchObject({ delivered: "slack", channel: "#general", ts: "1.2" });
    expect(elsewhere.requests).toEqual([]);
    expect(slack.requests).toHaveLength(1);
    expect(slack.requests[0]).toMatchObject({ method: "POST", url: "/api/chat.postMessage", body: JSON.stringify({ channel: "#general", text: "hello" }) });
    expect(slack.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("slack.post refuses a stored token with a bad character without quoting it or sending anything", async () => {
    const slack = await serve();
    allow = fetchAllowList(`127.0.0.1:${slack.port}`);
    vi.stubEnv("CLAWDECK_SLACK_BASE_URL", slack.origin);
    const broken = `${TOKEN}\n`;
    const error = await errorOf(slackPostTool.execute(context(broken), { channel: "#general", text: "hi" }));
    expect(error).toBeInstanceOf(ToolError);
    expect(error?.message).not.toContain(TOKEN);
    expect(error?.message).toContain("not a valid bot token");
    expect(slack.requests).toEqual([]);
  });

  it("the slack.post approval preview shows the destination host and channel", () => {
    vi.stubEnv("CLAWDECK_SLACK_BASE_URL", "");
    expect(slackPostTool.preview({ channel: "#ops", text: "x" }).fields).toContainEqual({ label: "Destination", value: "#ops on slack.com" });
    vi.stubEnv("CLAWDECK_SLACK_BASE_URL", "https://chat.example.org/slack/");
    expect(slackPostTool.preview({ channel: "#ops", text: "x" }).fields).toContainEqual({ label: "Destination", value: "#ops on chat.example.org" });
    expect(providerBaseUrl("slack")).toBe("https://chat.example.org/slack");
  });
});

describe("request headers", () => {
  it("a header value with a non-printable character is refused with a message that names the header, not the value", async () => {
    const server = await serve();
    const value = `Bearer ${TOKEN}\r\nx-injected: 1`;
    const error = await errorOf(safeFetch(server.origin, { allow: [`127.0.0.1:${server.port}`], headers: { authorization: value } }));
    expect(error).toBeInstanceOf(FetchHeaderError);
    expect(error?.message).toContain('"authorization"');
    expect(error?.message).not.toContain(TOKEN);
    expect(server.requests).toEqual([]);
  });

  it("a credential header is not carried to another origin by a redirect", async () => {
    const target = await serve((_q, res) => res.end("landed"));
    const first = await serve((_q, res) => res.writeHead(307, { location: `${target.origin}/next` }).end());
    const result = await safeFetch(`${first.origin}/`, {
      method: "POST",
      body: "{}",
      allow: [`127.0.0.1:${first.port}`, `127.0.0.1:${target.port}`],
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(result.body).toBe("landed");
    expect(first.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(target.requests[0]!.headers.authorization).toBeUndefined();
    expect(target.requests[0]!.method).toBe("POST");
  });
});

describe("Slack token shape", () => {
  it.each([
    ["xoxb-1234567890-0987654321-AbCdEf", true],
    ["xoxb-123", false],
    ["xoxp-1234567890-0987654321-AbCdEf", false],
    ["xoxb-1234567890\n-0987654321", false],
    ["xoxb-1234567890-09876543é21", false],
    ["xoxb-1234567890 0987654321", false],
    [`xoxb-${"a".repeat(300)}`, false],
  ])("%j is accepted: %s", (secret, ok) => {
    if (ok) expect(() => checkConnectionSecret("slack", secret)).not.toThrow();
    else {
      const error = (() => {
        try {
          checkConnectionSecret("slack", secret);
          return null;
        } catch (e) {
          return e as AppError;
        }
      })();
      expect(error?.code).toBe("unprocessable:connection_secret");
      expect(error?.message).not.toContain(secret);
    }
  });
});
