import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DELETE as mcpDelete, GET as mcpGet, POST as mcpPost } from "../../app/api/mcp/route";
import { createDoorToken } from "../../lib/door/tokens";
import type { Db } from "../../lib/db/client";
import { APP_ORIGIN } from "./server";

/** The SDK's own client, speaking to the real endpoint handler (its fetch goes to the route, not a socket). */
export async function connectDoor(token: string): Promise<Client> {
  const handlers: Record<string, (req: Request) => Promise<Response>> = { POST: mcpPost, GET: mcpGet, DELETE: mcpDelete };
  const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", APP_ORIGIN), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: (url, init) => {
      const request = new Request(url, init);
      return handlers[request.method]!(request);
    },
  });
  const client = new Client({ name: "door-test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** A door token for an agent, made by a person. */
export async function doorTokenFor(db: Db, agent: { id: string; workspaceId: string }, userId: string, name = "laptop"): Promise<string> {
  return (await createDoorToken(db, { workspaceId: agent.workspaceId, agentId: agent.id, userId, name })).token;
}

export const resultText = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

/** Ends the client's door session the way MCP clients do: `DELETE` with its `Mcp-Session-Id`. */
export async function endSession(client: Client): Promise<void> {
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
}

export const sessionIdOf = (client: Client) => (client.transport as StreamableHTTPClientTransport).sessionId;
