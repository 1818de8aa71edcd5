import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { eq } from "drizzle-orm";
import { agents } from "../db/schema";
import { isAppError } from "../errors";
import { findNul } from "../text";
import { callThroughDoor, type DoorCaller } from "../runtime/door-call";
import type { RuntimeDeps } from "../runtime/types";
import { toolSpec, type AnyTool } from "../tools/registry";
import type { ToolEffect } from "../tools/types";
import { recordDoorTokenUse } from "./tokens";

const READ_ONLY: readonly ToolEffect[] = ["reads_workspace", "reads_external"];
const DESTRUCTIVE: readonly ToolEffect[] = ["writes_workspace", "sends_externally", "spends_money", "executes_code"];
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

function textResult(text: string, isError: boolean): CallToolResult {
  return { content: [{ type: "text", text }], isError };
}

/** A fresh MCP server for one request of one caller (the endpoint is stateless: any instance can answer). */
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
    try {
      await options.limit?.();
    } catch (error) {
      if (isAppError(error) && error.kind === "rate_limited") throw new McpError(ErrorCode.InvalidRequest, error.message, { code: error.code, details: error.details });
      throw error;
    }
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
      if (isAppError(error) && error.code === "conflict:agent_paused") throw new McpError(ErrorCode.InvalidRequest, error.message);
      throw error;
    }
  });
  return server;
}

/** Answers one HTTP request of the MCP endpoint for an authenticated caller. */
export async function handleDoorRequest(req: Request, deps: RuntimeDeps, caller: DoorCaller, options: DoorOptions & { maxBodyBytes: number }): Promise<Response> {
  const server = createDoorServer(deps, caller, options);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, maxRequestBodySize: options.maxBodyBytes });
  await server.connect(transport);
  return transport.handleRequest(req);
}
