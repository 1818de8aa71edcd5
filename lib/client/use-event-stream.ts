"use client";

import { useEffect, useEffectEvent, useState } from "react";
import { followEventStream, type StreamMessage, type StreamState } from "./event-stream";

export interface EventStreamHookOptions {
  /** The stream's address, asked again before every connection (so `after=` can follow what the caller holds). */
  url: () => string;
  /** Each event, in order; `"stop"` ends the stream. */
  onMessage: (message: StreamMessage) => "stop" | void;
  /** Reconnects in a row, without a word from the server, before giving up. Default: never give up. */
  maxAttempts?: number;
  /** The key of a stream handed over by the request that started it (`handOverStream`): its first connection. */
  handedOver?: string;
}

/**
 * Follows a server event stream while `key` is set, through
 * `followEventStream`. A new `key` (another run, another filter) starts a new
 * stream; `null` closes it. Returns the stream's state for the page to show.
 */
export function useEventStream(key: string | null, workspace: string, options: EventStreamHookOptions): StreamState {
  const [state, setState] = useState<{ key: string | null; state: StreamState }>({ key: null, state: { status: "connecting" } });
  const url = useEffectEvent(() => options.url());
  const onMessage = useEffectEvent((message: StreamMessage) => options.onMessage(message));
  const maxAttempts = options.maxAttempts;
  const handedOver = options.handedOver;

  useEffect(() => {
    if (key === null) return;
    const abort = new AbortController();
    void followEventStream({
      url: () => url(),
      workspace,
      onMessage: (message) => onMessage(message),
      onState: (next) => setState({ key, state: next }),
      signal: abort.signal,
      maxAttempts,
      handedOver,
    });
    return () => abort.abort();
  }, [key, workspace, maxAttempts, handedOver]);

  return state.key === key ? state.state : { status: "connecting" };
}
