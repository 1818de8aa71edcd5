import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { eq } from "drizzle-orm";
import { agents } from "../db/schema";
import { isAppError } from "../errors";
import { findNul } from "../text";
import { callThroughDoor, type DoorCaller } from "./door-calls";
import type { RuntimeDeps } from "../runtime/types";
import { toolSpec, type AnyTool } from "../tools/registry";
import type { ToolEffect } from "../tools/types";
import { endDoorSession, openDoorSession, touchDoorSession } from "./door-sessions";
import { recordDoorTokenUse } from "./tokens";
import { readBodyText } from "../http/body";
import { jsonResponse } from "../http/json";

const READ_ONLY: readonly ToolEffect[] = ["reads_workspace", "reads_external"];
const DESTRUCTIVE: readonly ToolEffect[] = ["writes_workspace", "sends_externally", "spends_money", "executes_code", "writes_computer"];
const OPEN_WORLD: readonly ToolEffect[] = ["reads_external", "sends_externally", "spends_money"];

/** What MCP clients see of a tool: the same JSON Schema the model sees, and its declared effects as hints. */
export function doorToolOf(tool: AnyTool): Tool {
  const spec = toolSpec(tool);
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: { ...spec.inputSchema, type: "object" },
    annotations: {
      readOnlyHint: tool.effects.every((e) => READ_ONLY.includes(e)),
      destructiveHint: tool.effects.some((e) => DESTRUCTIVE.includes(e)),
      openWorldHint: tool.effects.some((e) => OPEN_WORLD.includes(e)),
    },
    _meta: { "clawdeck/effects": [...tool.effects] },
  };
}

/** Counts one run start for the token; past the limit, an MCP error that names it. */
async function limited(options: DoorOptions): Promise<void> {
  try {
    await options.limit?.();
  } catch (error) {
    if (isAppError(error) && error.kind === "rate_limited") throw new McpError(ErrorCode.InvalidRequest, error.message, { code: error.code, details: error.details });
    throw error;
  }
}

function textResult(text: string, isError: boolean): CallToolResult {
  return { content: [{ type: "text", text }], isError };
}

/** A fresh MCP server for one request of one caller (any instance can answer: sessions live in the database). */
export interface DoorOptions {
  waitMs: number;
  progressEveryMs?: number;
  /** Counts one run start for the token; throws a `rate_limited:*` error past the limit. */
  limit?: () => Promise<void>;
}

export function createDoorServer(deps: RuntimeDeps, caller: DoorCaller, options: DoorOptions): Server {
  const server = new Server({ name: "clawdeck", version: "1.0.0" }, { capabilities: { tools: {} } });
  const allowed = () => caller.agent.tools.map((name) => deps.tools.get(name)).filter((t): t is AnyTool => !!t);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: allowed().map(doorToolOf) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // The agent may have been paused since the token was read: ask again, right before acting.
    const [agent] = await deps.db.select().from(agents).where(eq(agents.id, caller.agent.id));
    if (!agent) throw new McpError(ErrorCode.InvalidRequest, "The agent of this door token no longer exists.");
    if (agent.status === "paused") throw new McpError(ErrorCode.InvalidRequest, `@${agent.handle} is paused: nothing was run. Ask a manager of the workspace to resume it.`);
    await limited(options);
    await recordDoorTokenUse(deps.db, caller.token.id);
    // PostgreSQL stores no NUL character: refuse such input before a run exists, as every route does.
    const nulAt = findNul(request.params.arguments ?? {}, "arguments");
    if (nulAt) throw new McpError(ErrorCode.InvalidParams, `Invalid input: ${nulAt} contains a NUL character, which is not allowed.`);
    const progressToken = request.params._meta?.progressToken;
    try {
      const outcome = await callThroughDoor(
        deps,
        { ...caller, agent },
        { name: request.params.name, input: request.params.arguments ?? {} },
        {
          waitMs: options.waitMs,
          progressEveryMs: options.progressEveryMs,
          onWaiting: async (approvalId, waitedMs) => {
            if (progressToken === undefined) return;
            await extra.sendNotification({
              method: "notifications/progress",
              params: { progressToken, progress: waitedMs, total: options.waitMs, message: `Waiting for a reviewer to decide approval ${approvalId}.` },
            });
          },
        },
      );
      switch (outcome.kind) {
        case "result":
          return textResult(outcome.result.content, !!outcome.result.isError);
        case "timeout":
          return textResult(
            `Approval ${outcome.approvalId} is waiting for a reviewer in Clawdeck; nothing was done yet. Repeat exactly the same call once it is approved: it then runs once.`,
            true,
          );
        case "busy":
          return textResult(`Approval ${outcome.approvalId} was already used by another call with the same input; nothing was done by this one.`, true);
      }
    } catch (error) {
      if (isAppError(error) && (error.code === "conflict:agent_paused" || error.code === "conflict:door_session")) throw new McpError(ErrorCode.InvalidRequest, error.message);
      throw error;
    }
  });
  return server;
}

/** A JSON-RPC error as the door's HTTP answer, so that MCP clients show the message; `data.code` is Clawdeck's code. */
function doorError(status: number, rpcCode: number, message: string, code?: string, headers?: Record<string, string>): Response {
  return jsonResponse({ jsonrpc: "2.0", error: { code: rpcCode, message, ...(code ? { data: { code } } : {}) }, id: null }, { status, headers });
}

const sessionNotFound = () => doorError(404, -32001, "Session not found: start a new session (initialize).");

/** How many requests of one token, and of one workspace's tokens, this process answers at once (a gated call's answer stays open while it waits). */
export const DOOR_STREAMS_PER_TOKEN = 8;
export const DOOR_STREAMS_PER_WORKSPACE = 32;
const DOOR_BUSY_RETRY_SECONDS = 5;

const openStreams = new Map<string, number>();

/** Takes a place for one open request of the token and its workspace; null when either is full. */
function takeStream(caller: DoorCaller): (() => void) | null {
  const keys = [`token:${caller.token.id}`, `workspace:${caller.agent.workspaceId}`];
  const limits = [DOOR_STREAMS_PER_TOKEN, DOOR_STREAMS_PER_WORKSPACE];
  if (keys.some((key, i) => (openStreams.get(key) ?? 0) >= limits[i]!)) return null;
  for (const key of keys) openStreams.set(key, (openStreams.get(key) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const key of keys) {
      const left = (openStreams.get(key) ?? 1) - 1;
      if (left <= 0) openStreams.delete(key);
      else openStreams.set(key, left);
    }
  };
}

/** The response, holding its place until its body has been sent, cancelled or failed. */
function holdUntilSent(response: Response, release: () => void): Response {
  if (!response.body) {
    release();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Whether a JSON-RPC body (one message or a batch) holds an `initialize` request. */
function isInitialize(text: string): boolean {
  try {
    const body: unknown = JSON.parse(text);
    return (Array.isArray(body) ? body : [body]).some((m) => (m as { method?: unknown } | null)?.method === "initialize");
  } catch {
    return false;
  }
}

/**
 * Answers one HTTP request of the MCP endpoint for an authenticated caller.
 * The SDK's transport answers each request on its own (any instance can);
 * sessions are ours, in the database: `initialize` opens one and returns its
 * `Mcp-Session-Id`; a request carrying an unknown, ended or other token's
 * session gets 404 (the client then starts a new one); `DELETE` ends it. A
 * client that sends no session id still works: each of its calls is a run.
 */
export async function handleDoorRequest(req: Request, deps: RuntimeDeps, caller: DoorCaller, options: DoorOptions & { maxBodyBytes: number }): Promise<Response> {
  // The door sends nothing unasked, so it offers no stream to listen on (the transport allows a 405 here).
  if (req.method === "GET") return doorError(405, -32000, "This endpoint offers no event stream: send requests with POST.", undefined, { Allow: "POST, DELETE" });
  if (req.method !== "POST") return answerDoorRequest(req, deps, caller, options);
  const release = takeStream(caller);
  if (!release) {
    return doorError(
      429,
      -32000,
      `This door token already has ${DOOR_STREAMS_PER_TOKEN} requests open (or its workspace ${DOOR_STREAMS_PER_WORKSPACE}): wait for one to finish.`,
      "rate_limited:door_streams",
      { "Retry-After": String(DOOR_BUSY_RETRY_SECONDS) },
    );
  }
  try {
    return holdUntilSent(await answerDoorRequest(req, deps, caller, options), release);
  } catch (error) {
    release();
    throw error;
  }
}

async function answerDoorRequest(req: Request, deps: RuntimeDeps, caller: DoorCaller, options: DoorOptions & { maxBodyBytes: number }): Promise<Response> {
  const sessionHeader = req.headers.get("mcp-session-id");
  let session: { id: string; runId: string } | null = null;
  if (sessionHeader) {
    session = await touchDoorSession(deps.db, caller.token.id, sessionHeader);
    if (!session) return sessionNotFound();
    if (req.method === "DELETE") {
      await endDoorSession(deps, session.id, "The client ended the door session before the call was repeated.");
      return new Response(null, { status: 200 });
    }
  }
  let request = req;
  let opened: string | null = null;
  if (req.method === "POST") {
    // Read with the cap every route has, before anything else looks at it: refused by its Content-Length, or as soon
    // as a body sent without one passes the cap.
    let text: string;
    try {
      text = await readBodyText(req, options.maxBodyBytes);
    } catch (error) {
      if (!isAppError(error)) throw error;
      return doorError(error.status, -32600, error.message, error.code);
    }
    request = new Request(req.url, { method: "POST", headers: req.headers, body: text });
  }
  if (req.method === "POST" && !session) {
    if (isInitialize(await request.clone().text())) {
      try {
        await options.limit?.();
        opened = await openDoorSession(deps, caller);
      } catch (error) {
        if (isAppError(error) && error.kind === "rate_limited") {
          const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
          return doorError(429, -32000, error.message, error.code, retryAfter ? { "Retry-After": String(retryAfter) } : undefined);
        }
        // A paused agent: no session; its calls then get the clear error a paused agent's token gets.
        if (!isAppError(error) || error.code !== "conflict:agent_paused") throw error;
      }
    }
  }
  const server = createDoorServer(deps, session ? { ...caller, session } : caller, opened ? { ...options, limit: undefined } : options);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: options.maxBodyBytes });
  await server.connect(transport);
  const response = await transport.handleRequest(request);
  if (!opened) return response;
  if (!response.ok) {
    await endDoorSession(deps, opened, "The door session could not be opened.");
    return response;
  }
  const headers = new Headers(response.headers);
  headers.set("mcp-session-id", opened);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
