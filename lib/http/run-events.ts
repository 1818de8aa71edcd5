import type { Viewer } from "../access/access";
import { assertReadableRun } from "../access/reads";
import { streamRunEvents } from "../runtime/stream";
import type { Server } from "../server";
import { handOverWhen, sseResponse, type EventStreamReply } from "./sse";
import type { AccessCheck } from "./route";

/** Whether a request asks for an event stream as its answer. */
export function wantsEventStream(req: Request): boolean {
  return (req.headers.get("accept") ?? "").includes("text/event-stream");
}

/**
 * A run's journal as one viewer's event stream, from after `afterSeq`: the one
 * way a route answers with a run's events (the run's events route, and the
 * answer to a chat message that started it). The stream subscribes before this
 * function first waits, and its first read goes out with the access check;
 * none of it is sent unless the check passes. It then rechecks the session and
 * membership while it is open (`stillAllowed`) and ends when the request does.
 */
export async function runEventsResponse(input: {
  req: Request;
  server: Pick<Server, "db" | "bus">;
  workspaceId: string;
  viewer: Viewer;
  runId: string;
  afterSeq: number;
  stillAllowed: AccessCheck;
  headers?: Record<string, string>;
  /** The run has journaled nothing yet: called before it is driven (see `startChatRun`), the stream reads nothing first. */
  fresh?: boolean;
}): Promise<EventStreamReply> {
  const { req, server, runId, viewer } = input;
  const abort = new AbortController();
  // A client gone before this point (while its message was written) ends the stream at once.
  if (req.signal.aborted) abort.abort();
  else req.signal.addEventListener("abort", () => abort.abort(), { once: true });
  const events = await handOverWhen(
    streamRunEvents({ db: server.db, bus: server.bus, runId, afterSeq: input.afterSeq, signal: abort.signal, viewer, fresh: input.fresh }),
    assertReadableRun(server.db, input.workspaceId, runId, viewer),
    abort,
  );
  return sseResponse(events, { stillAllowed: input.stillAllowed, onClose: () => abort.abort(), headers: input.headers });
}
