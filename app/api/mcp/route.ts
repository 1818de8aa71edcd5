import { authenticateDoorToken } from "@/lib/door/tokens";
import { handleDoorRequest } from "@/lib/door/mcp";
import { isAppError } from "@/lib/errors";
import { errorResponse } from "@/lib/http/errors";
import { jsonResponse } from "@/lib/http/json";
import { documented } from "@/lib/http/route";
import { limitRunStart } from "@/lib/runtime/run-limit";
import { doorWaitSecondsOf, getGovernor } from "@/lib/safety/governor";
import { getServer } from "@/lib/server";

/**
 * The door: the MCP endpoint (Streamable HTTP, stateless) through which an
 * outside agent acts as one of the workspace's agents with a door token. No
 * cookie is read here; the bearer token is the only credential.
 */
async function handle(req: Request): Promise<Response> {
  try {
    const server = await getServer();
    const caller = await authenticateDoorToken(server.db, req.headers.get("authorization"));
    const governor = await getGovernor(server.db, caller.token.workspaceId);
    return await handleDoorRequest(req, server.runtime.deps, caller, {
      waitMs: doorWaitSecondsOf(governor, server.env.CLAWDECK_DOOR_WAIT_SECONDS) * 1000,
      maxBodyBytes: server.env.CLAWDECK_MAX_BODY_BYTES,
      // Each call starts a run: the same run-start limit as a person's messages, per token.
      limit: () => limitRunStart(server, `door:${caller.token.id}`),
    });
  } catch (error) {
    if (isAppError(error) && error.code === "unauthorized:door_token") {
      // A JSON-RPC error, so MCP clients show the reason; nothing ran.
      return jsonResponse(
        { jsonrpc: "2.0", error: { code: -32001, message: error.message, data: { code: error.code } }, id: null },
        { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="clawdeck-door"', "Cache-Control": "no-store" } },
      );
    }
    return errorResponse(error);
  }
}

const caller = "a door token: `Authorization: Bearer cdk_…`";

export const POST = documented(
  {
    summary:
      "the door (see `docs/door.md`): an MCP server (Streamable HTTP) through which an outside agent lists and calls its agent's tools under the workspace's policy; `initialize` returns an `Mcp-Session-Id` (each session is one run; 404 for an unknown or ended session); 401 with a JSON-RPC error for a missing, wrong, revoked or expired token; 413 for a body over `CLAWDECK_MAX_BODY_BYTES`; 429 with `Retry-After` past 8 open requests of a token (32 of a workspace)",
    role: caller,
  },
  handle,
);
export const GET = documented({ summary: "405: the door sends nothing unasked, so it offers no event stream", role: caller }, handle);
export const DELETE = documented({ summary: "ends the session its `Mcp-Session-Id` header names", role: caller }, handle);
