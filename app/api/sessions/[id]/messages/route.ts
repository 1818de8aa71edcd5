import { z } from "zod";
import { accepted, route } from "@/lib/http/route";
import { runEventsResponse, wantsEventStream } from "@/lib/http/run-events";
import type { EventStreamReply } from "@/lib/http/sse";
import { chatRunStartedSchema, RUN_ID_HEADER } from "@/lib/chats/chat-schemas";
import { limitRunStart } from "@/lib/runtime/run-limit";
import { titleFrom } from "@/lib/chats/chat-edits";
import { logError } from "@/lib/log";

export const dynamic = "force-dynamic";

const doc = {
  summary:
    "202 `{runId}`; with `Accept: text/event-stream`, 200 and the reply's events (as `GET /api/runs/{id}/events`, the run in the `Clawdeck-Run-Id` header); 409 while a run is active, 409 `conflict:agent_paused` for a paused agent, 422 `unprocessable:budget_exceeded` when the agent's or the workspace's monthly budget is spent (nothing is stored), 429 `rate_limited:runs` past the per-person limit, refusals always as JSON",
  role: "the chat's owner",
};

/**
 * Sends a message in one's own chat and starts the agent's reply. The answer is
 * 202 `{ runId }`; asked with `Accept: text/event-stream`, it is the reply's
 * event stream instead (200, the run named by the `Clawdeck-Run-Id` header), so
 * a message and its streamed reply take one request. Anything refused is
 * refused before either, as JSON.
 */
export const POST = route(
  { doc, params: z.object({ id: z.uuid() }), body: z.object({ text: z.string().trim().min(1, "Write a message").max(20_000) }), response: chatRunStartedSchema },
  async ({ req, server, workspace, user, params, body, stillAllowed }) => {
    // Every attempt counts toward the person's limit, refused ones included.
    await limitRunStart(server, user.id);
    const viewer = { userId: user.id, role: workspace.role };
    let stream: Promise<EventStreamReply> | undefined;
    // One statement checks that the chat is this person's, writes the message and starts the run; the chat is named
    // after its first message in it. The answer's stream subscribes before the run is driven, so every event of the
    // run reaches it from memory.
    const { runId } = await server.runtime.startChatRun(
      { workspaceId: workspace.id, sessionId: params.id, userId: user.id, role: workspace.role, text: body.text, title: titleFrom(body.text) },
      {
        beforeDrive: wantsEventStream(req)
          ? (runId) => {
              const headers = { [RUN_ID_HEADER]: runId };
              stream = runEventsResponse({ req, server, workspaceId: workspace.id, viewer, runId, afterSeq: 0, stillAllowed, headers, fresh: true });
            }
          : undefined,
      },
    );
    if (!stream) return accepted({ runId });
    // The message was taken and its run goes on: a stream that cannot be opened leaves the page to open it by the
    // events route, which says why if it still cannot.
    return stream.catch((error: unknown) => {
      logError("The answer to a chat message could not stream its run", error);
      return accepted({ runId });
    });
  },
);
