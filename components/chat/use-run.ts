"use client";

import { useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useEffectEvent, useState } from "react";
import { STREAM_ERROR_EVENT, streamErrorFromData } from "@/lib/errors";
import { isTerminal } from "@/lib/runtime/events";
import { useWorkspace } from "../providers";
import { applyRunEvent, decodeRunEvent, emptyTimeline, isDone, replayRun, runEventTypes, type Timeline } from "./timeline";
import { chatKeys } from "@/lib/client/query-keys";

const RETRY_MS = [1_000, 2_000, 4_000, 8_000];

/**
 * Follows a run live. The timeline lives in the query cache under the run's
 * key, so whoever renders the reply reads the same data. The stream opens at
 * the last sequence the cache has (0 after a page load: the whole journal is
 * replayed, which rebuilds text and steps exactly) and closes at the terminal
 * event; `onDone` then lets the caller refresh the stored history.
 *
 * EventSource reconnects by itself after a drop, sending Last-Event-ID; if it
 * gives up (an HTTP error), we reopen it a few times from the last sequence.
 * Events already applied are ignored by sequence, so nothing shows twice.
 * A `stream_error` the server sends is kept as `streamError` (for the page
 * to show) until the next event arrives on the reconnected stream.
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
  const [lostRun, setLostRun] = useState<string | null>(null);
  const [streamError, setStreamError] = useState<{ runId: string; message: string } | null>(null);
  const finished = useEffectEvent((last: Timeline) => onDone(last));

  useEffect(() => {
    if (!runId || done) return;
    const key = chatKeys.run(workspace.slug, runId);
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let attempts = 0;
    let closed = false;

    const onEvent = (message: MessageEvent<string>) => {
      const event = decodeRunEvent(message.type, message.data);
      if (!event) return;
      attempts = 0;
      setLostRun(null);
      setStreamError(null);
      const next = applyRunEvent(queryClient.getQueryData<Timeline>(key) ?? emptyTimeline(runId), event);
      queryClient.setQueryData<Timeline>(key, next);
      if (isTerminal(event.type)) {
        closed = true;
        source?.close();
        finished(next);
      }
    };
    const onStreamError = (message: MessageEvent<string>) => {
      setStreamError({ runId, message: streamErrorFromData(message.data).message });
    };
    const onError = () => {
      if (closed || !source || source.readyState !== EventSource.CLOSED) return; // CONNECTING: the browser is retrying.
      const delay = RETRY_MS[attempts];
      if (delay === undefined) {
        setLostRun(runId);
        return;
      }
      attempts += 1;
      retryTimer = setTimeout(open, delay);
    };
    function open() {
      if (closed) return;
      const after = queryClient.getQueryData<Timeline>(key)?.lastSeq ?? 0;
      source = new EventSource(`/api/runs/${encodeURIComponent(runId ?? "")}/events?after=${after}&workspace=${encodeURIComponent(workspace.slug)}`);
      for (const type of runEventTypes) source.addEventListener(type, onEvent);
      source.addEventListener(STREAM_ERROR_EVENT, onStreamError);
      source.addEventListener("error", onError);
    }

    open();
    return () => {
      closed = true;
      clearTimeout(retryTimer);
      source?.close();
    };
  }, [runId, done, workspace.slug, queryClient]);

  return {
    timeline,
    lost: !!runId && lostRun === runId,
    streamError: runId && streamError?.runId === runId ? streamError.message : null,
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
