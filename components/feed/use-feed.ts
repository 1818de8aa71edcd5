"use client";

import { useCallback, useEffect, useEffectEvent, useRef, useState } from "react";
import { STREAM_ERROR_EVENT, streamErrorFromData } from "@/lib/errors";
import { useApi, useWorkspace } from "../providers";
import { feedItemSchema, type FeedItem } from "@/lib/feed/feed-schemas";
import { filterQuery, type FeedFilter } from "./feed-filter";
import { mergeFeedItems } from "./feed-items";

export type FeedStatus = "loading" | "live" | "reconnecting" | "offline" | "error";

const RETRY_MS = [1_000, 2_000, 4_000, 8_000, 15_000];
const PAGE = 500;

interface FeedPage {
  items: FeedItem[];
  seq: number;
}

/**
 * The world feed, live. Loads the newest items, then follows
 * `/api/feed/events` from the newest seq it has. Every item is applied once,
 * by seq: the browser's own reconnect (Last-Event-ID), a reopened stream
 * (`after=`) and a reload all continue exactly after the last item seen.
 *
 * The filter is fixed for the life of the hook: give the component using it a
 * `key` made from the filter to start over when it changes.
 */
export function useFeed(filter: FeedFilter, options: { limit?: number; onItems?: (items: FeedItem[]) => void } = {}) {
  const api = useApi();
  const { slug } = useWorkspace();
  const limit = options.limit ?? 200;
  const [items, setItems] = useState<FeedItem[]>([]);
  const [status, setStatus] = useState<FeedStatus>("loading");
  /** What ended the stream (an application error when the server said why), for `ErrorNotice`. */
  const [error, setError] = useState<unknown>(null);
  const [older, setOlder] = useState<"unknown" | "loading" | "none">("unknown");
  const [attempt, setAttempt] = useState(0);
  const itemsRef = useRef<FeedItem[]>([]);
  const query = filterQuery(filter).toString();
  const notify = useEffectEvent((fresh: FeedItem[]) => options.onItems?.(fresh));
  const fetchPage = useEffectEvent((path: string, signal: AbortSignal) => api<FeedPage>(path, { signal }));

  useEffect(() => {
    const abort = new AbortController();
    let source: EventSource | null = null;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let frame: number | undefined;
    let failures = 0;
    let queue: FeedItem[] = [];
    const cursor = () => {
      const list = itemsRef.current;
      return list.length > 0 ? list[list.length - 1]!.seq : 0;
    };

    // Items can arrive by the thousand (a replay after a long disconnect): apply them once per frame.
    const flush = () => {
      frame = undefined;
      if (queue.length === 0) return;
      const batch = queue;
      queue = [];
      const before = itemsRef.current;
      const next = mergeFeedItems(before, batch);
      if (next === before) return;
      itemsRef.current = next;
      setItems(next);
      const known = new Set(before.map((i) => i.seq));
      notify(batch.filter((i) => !known.has(i.seq)));
    };
    const enqueue = (incoming: FeedItem[]) => {
      queue.push(...incoming);
      frame ??= requestAnimationFrame(flush);
    };

    const onFeed = (message: MessageEvent<string>) => {
      let json: unknown;
      try {
        json = JSON.parse(message.data);
      } catch {
        return;
      }
      const parsed = feedItemSchema.safeParse(json);
      if (!parsed.success) return;
      failures = 0;
      enqueue([parsed.data]);
    };

    function open() {
      if (abort.signal.aborted) return;
      // Flush first so the cursor includes everything received so far.
      if (frame !== undefined) cancelAnimationFrame(frame);
      flush();
      const params = new URLSearchParams(query);
      params.set("after", String(cursor()));
      params.set("workspace", slug);
      const es = new EventSource(`/api/feed/events?${params.toString()}`);
      source = es;
      es.addEventListener("feed", onFeed);
      // The server tells why it ended the stream: show it and let the person retry.
      es.addEventListener(STREAM_ERROR_EVENT, (message) => {
        if (abort.signal.aborted || source !== es) return;
        es.close();
        setStatus("error");
        setError(streamErrorFromData((message as MessageEvent<string>).data));
      });
      es.addEventListener("open", () => {
        failures = 0;
        setStatus("live");
      });
      es.addEventListener("error", () => {
        if (abort.signal.aborted || source !== es) return;
        if (es.readyState === EventSource.CONNECTING) {
          // The browser reconnects by itself and sends Last-Event-ID.
          setStatus("reconnecting");
          return;
        }
        es.close();
        const delay = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
        failures += 1;
        setStatus(failures > RETRY_MS.length ? "offline" : "reconnecting");
        retryTimer = setTimeout(open, delay);
      });
    }

    const cleanup = () => {
      abort.abort();
      clearTimeout(retryTimer);
      if (frame !== undefined) cancelAnimationFrame(frame);
      source?.close();
      source = null;
    };
    // Starting again after an error: continue after what is already here, so nothing is skipped.
    if (itemsRef.current.length > 0) {
      open();
      return cleanup;
    }
    const params = new URLSearchParams(query);
    params.set("limit", String(limit));
    fetchPage(`/api/feed?${params.toString()}`, abort.signal)
      .then((page) => {
        if (abort.signal.aborted) return;
        const first = mergeFeedItems(itemsRef.current, page.items);
        itemsRef.current = first;
        setItems(first);
        if (page.items.length < limit) setOlder("none");
        open();
      })
      .catch((e: unknown) => {
        if (abort.signal.aborted) return;
        setStatus("error");
        setError(e);
      });

    return cleanup;
  }, [slug, query, limit, attempt]);

  /** Starts again after an error (keeps what is loaded; continues after the last seq). */
  const retry = useCallback(() => {
    setStatus("loading");
    setError(null);
    setAttempt((n) => n + 1);
  }, []);

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
          const page = await api<FeedPage>(`/api/feed?${params.toString()}`);
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
