"use client";

import { useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { handOverStream } from "@/lib/client/event-stream";
import { useEventStream } from "@/lib/client/use-event-stream";
import { AppError } from "@/lib/errors";
import { chatRunStartedSchema, RUN_ID_HEADER } from "@/lib/chats/chat-schemas";
import { isTerminal } from "@/lib/journal/run-events";
import { useWorkspace } from "../providers";
import { applyRunEvent, decodeRunEvent, emptyTimeline, isDone, replayRun, type Timeline } from "./timeline";
import { chatKeys } from "@/lib/client/query-keys";

/** The key under which the answer to a chat message hands its reply's stream to the run's follower. */
export function runStreamKey(workspace: string, runId: string): string {
  return `run:${workspace}:${runId}`;
}

/**
 * The run a message's answer started. A streamed answer names it in a header and is handed to the run's follower; an
 * answer that is not a stream (`202 { runId }`: a server or a proxy that did not stream it) names it in its body, and
 * the follower opens the run's stream itself.
 */
export async function runOfAnswer(workspace: string, response: Response): Promise<{ runId: string }> {
  const streamed = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  const started = chatRunStartedSchema.safeParse(
    streamed ? { runId: response.headers.get(RUN_ID_HEADER) } : await response.json().catch(() => undefined),
  );
  if (!started.success) {
    await response.body?.cancel().catch(() => undefined);
    throw new AppError("internal:contract", "The server's answer to the message does not name its run.");
  }
  if (streamed) handOverStream(runStreamKey(workspace, started.data.runId), response);
  return started.data;
}

/** Reconnects in a row without a word from the server before the page says the reply was lost. */
const MAX_ATTEMPTS = 5;

/**
 * Follows a run live. The timeline lives in the query cache under the run's
 * key, so whoever renders the reply reads the same data. The stream opens at
 * the last sequence the cache has (0 after a page load: the whole journal is
 * replayed, which rebuilds text and steps exactly) and closes at the terminal
 * event; `onDone` then lets the caller refresh the stored history. A run this
 * page started is first read from the answer to its message, handed over under
 * `runStreamKey`, so its events need no request of their own.
 *
 * A dropped connection is opened again from the last sequence the cache holds
 * (see `followEventStream`); events already applied are ignored by sequence,
 * so nothing shows twice. While it reconnects, what the server said is
 * `streamError`; when it gives up or is refused, `lost` is set and
 * `streamError` says why.
 */
export function useRunStream(
  runId: string | null,
  onDone: (timeline: Timeline) => void,
): { timeline: Timeline | undefined; lost: boolean; streamError: string | null } {
  const workspace = useWorkspace();
  const queryClient = useQueryClient();
  const timeline = useQuery({
    queryKey: chatKeys.run(workspace.slug, runId ?? "none"),
    queryFn: (): Promise<Timeline> => Promise.reject(new Error("A live run is filled by its stream.")),
    enabled: false,
    staleTime: Infinity,
    gcTime: 30 * 60_000,
  }).data;
  const done = isDone(timeline);
  const key = runId ? chatKeys.run(workspace.slug, runId) : null;

  const state = useEventStream(runId && !done ? runId : null, workspace.slug, {
    url: () => {
      const after = key ? (queryClient.getQueryData<Timeline>(key)?.lastSeq ?? 0) : 0;
      return `/api/runs/${encodeURIComponent(runId ?? "")}/events?after=${after}&workspace=${encodeURIComponent(workspace.slug)}`;
    },
    onMessage: (message) => {
      if (!runId || !key) return "stop";
      const event = decodeRunEvent(message.event, message.data);
      if (!event) return;
      const next = applyRunEvent(queryClient.getQueryData<Timeline>(key) ?? emptyTimeline(runId), event);
      queryClient.setQueryData<Timeline>(key, next);
      if (!isTerminal(event.type)) return;
      onDone(next);
      return "stop";
    },
    maxAttempts: MAX_ATTEMPTS,
    handedOver: runId ? runStreamKey(workspace.slug, runId) : undefined,
  });

  return {
    timeline,
    lost: state.status === "failed",
    streamError: state.status === "failed" || state.status === "reconnecting" ? (state.error?.message ?? null) : null,
  };
}

export function runTimelineQuery(workspace: string, runId: string) {
  return {
    queryKey: chatKeys.run(workspace, runId),
    queryFn: ({ signal }: { signal: AbortSignal }) => replayRun(runId, workspace, signal),
    staleTime: Infinity,
    gcTime: 30 * 60_000,
    retry: 1,
  };
}

/** Timelines of finished runs (replayed once from their journals, then cached). */
export function useFinishedTimelines(runIds: string[]) {
  const workspace = useWorkspace();
  return useQueries({
    queries: runIds.map((id) => runTimelineQuery(workspace.slug, id)),
    combine: (results) => {
      const byRun = new Map<string, Timeline>();
      results.forEach((result, i) => {
        const id = runIds[i];
        if (id && result.data) byRun.set(id, result.data);
      });
      return { pending: results.some((r) => r.isPending), byRun };
    },
  });
}
