"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useEffectEvent, useRef, useState } from "react";
import { feedKeys } from "@/lib/client/query-keys";
import { useEventStream } from "@/lib/client/use-event-stream";
import { useApi, useWorkspace } from "../providers";
import { feedItemSchema, feedPageSchema, type FeedItem, type FeedPage } from "@/lib/feed/feed-schemas";
import { filterQuery, type FeedFilter } from "./feed-filter";
import { mergeFeedItems } from "./feed-items";

export type FeedStatus = "loading" | "live" | "reconnecting" | "offline" | "error";

const PAGE = 500;


/** Reconnects in a row before the feed says it is offline (it keeps trying). */
const OFFLINE_AFTER = 5;

/**
 * The world feed, live. Loads the newest items, then follows
 * `/api/feed/events` from the newest seq it has (through `useEventStream`).
 * Every item is applied once, by seq: a reconnect (`Last-Event-ID` and
 * `after=`), a retry after an error and a reload all continue exactly after
 * the last item seen.
 *
 * The filter is fixed for the life of the hook: give the component using it a
 * `key` made from the filter to start over when it changes.
 */
export function useFeed(filter: FeedFilter, options: { limit?: number; onItems?: (items: FeedItem[]) => void } = {}) {
  const api = useApi();
  const { slug } = useWorkspace();
  const limit = options.limit ?? 200;
  const query = filterQuery(filter).toString();
  // The first page when the server prefetched it (or an earlier visit left it): shown at once, followed from its seq.
  const queryClient = useQueryClient();
  const [first] = useState(() => queryClient.getQueryData<FeedPage>(feedKeys.page(slug, query, limit)));
  const [items, setItems] = useState<FeedItem[]>(first?.items ?? []);
  const [older, setOlder] = useState<"unknown" | "loading" | "none">(first && first.items.length < limit ? "none" : "unknown");
  const [attempt, setAttempt] = useState(0);
  const streamKey = `${slug}?${query}#${attempt}`;
  /** The stream to follow once the first page is in: a new one after each retry. */
  const [ready, setReady] = useState<string | null>(first ? streamKey : null);
  const [loadError, setLoadError] = useState<{ key: string; error: unknown } | null>(null);
  const itemsRef = useRef<FeedItem[]>(first?.items ?? []);
  const queue = useRef<FeedItem[]>([]);
  const frame = useRef<number | undefined>(undefined);
  // The newest `onItems`, for the per-frame flush (which runs outside React's render).
  const onItems = useRef(options.onItems);
  useEffect(() => {
    onItems.current = options.onItems;
  });
  const fetchPage = useEffectEvent((path: string, signal: AbortSignal) => api(path, { signal, schema: feedPageSchema }));

  // Items can arrive by the thousand (a replay after a long disconnect): apply them once per frame.
  const flush = useCallback(() => {
    frame.current = undefined;
    if (queue.current.length === 0) return;
    const batch = queue.current;
    queue.current = [];
    const before = itemsRef.current;
    const next = mergeFeedItems(before, batch);
    if (next === before) return;
    itemsRef.current = next;
    setItems(next);
    const known = new Set(before.map((i) => i.seq));
    onItems.current?.(batch.filter((i) => !known.has(i.seq)));
  }, []);
  useEffect(
    () => () => {
      if (frame.current !== undefined) cancelAnimationFrame(frame.current);
    },
    [],
  );

  // The first page; a retry with items already here goes straight to the stream (see `retry`).
  useEffect(() => {
    if (itemsRef.current.length > 0) return;
    const key = streamKey;
    const abort = new AbortController();
    const params = new URLSearchParams(query);
    params.set("limit", String(limit));
    fetchPage(`/api/feed?${params.toString()}`, abort.signal)
      .then((page) => {
        if (abort.signal.aborted) return;
        const first = mergeFeedItems(itemsRef.current, page.items);
        itemsRef.current = first;
        setItems(first);
        if (page.items.length < limit) setOlder("none");
        setReady(key);
      })
      .catch((error: unknown) => {
        if (!abort.signal.aborted) setLoadError({ key, error });
      });
    return () => abort.abort();
  }, [streamKey, query, limit]);

  const stream = useEventStream(ready === streamKey ? streamKey : null, slug, {
    url: () => {
      // Apply what is queued first so the cursor includes everything received so far.
      if (frame.current !== undefined) cancelAnimationFrame(frame.current);
      flush();
      const params = new URLSearchParams(query);
      params.set("after", String(itemsRef.current.at(-1)?.seq ?? 0));
      params.set("workspace", slug);
      return `/api/feed/events?${params.toString()}`;
    },
    onMessage: (message) => {
      if (message.event !== "feed") return;
      let json: unknown;
      try {
        json = JSON.parse(message.data);
      } catch {
        return;
      }
      const parsed = feedItemSchema.safeParse(json);
      if (!parsed.success) return;
      queue.current.push(parsed.data);
      frame.current ??= requestAnimationFrame(flush);
    },
  });

  let status: FeedStatus;
  /** What ended the stream (an application error when the server said why), for `ErrorNotice`. */
  let error: unknown = null;
  if (loadError?.key === streamKey) {
    status = "error";
    error = loadError.error;
  } else if (ready !== streamKey || stream.status === "connecting") status = "loading";
  else if (stream.status === "failed") {
    status = "error";
    error = stream.error;
  } else if (stream.status === "reconnecting") status = stream.attempt > OFFLINE_AFTER ? "offline" : "reconnecting";
  else status = "live";

  /** Starts again after an error (keeps what is loaded; continues after the last seq). */
  const retry = useCallback(() => {
    const next = `${slug}?${query}#${attempt + 1}`;
    setLoadError(null);
    if (itemsRef.current.length > 0) setReady(next);
    setAttempt(attempt + 1);
  }, [slug, query, attempt]);

  /**
   * Older items, before the first one loaded. The API reads forwards from a
   * seq, so this reads a window before the first item (widening it when a
   * filter leaves it empty) and keeps what falls before it.
   */
  const loadOlder = useCallback(async () => {
    const first = itemsRef.current[0]?.seq;
    if (!first || first <= 1) {
      setOlder("none");
      return;
    }
    setOlder("loading");
    try {
      let span = PAGE;
      let found: FeedItem[] = [];
      let from = first;
      while (found.length === 0 && from > 0) {
        from = Math.max(0, first - 1 - span);
        let after = from;
        for (;;) {
          const params = new URLSearchParams(query);
          params.set("after", String(after));
          params.set("limit", String(PAGE));
          const page = await api(`/api/feed?${params.toString()}`, { schema: feedPageSchema });
          const before = page.items.filter((i) => i.seq < first);
          found = found.concat(before);
          if (page.items.length < PAGE || before.length < page.items.length) break;
          after = page.items[page.items.length - 1]!.seq;
        }
        span *= 8;
      }
      const next = mergeFeedItems(itemsRef.current, found.slice(-PAGE), Infinity);
      itemsRef.current = next;
      setItems(next);
      setOlder(from === 0 && found.length <= PAGE ? "none" : "unknown");
    } catch {
      setOlder("unknown");
    }
  }, [api, query]);

  return { items, status, error, older, loadOlder, retry };
}
