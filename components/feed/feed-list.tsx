"use client";

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState } from "react";
import { FeedRow, type AgentRef } from "./feed-row";
import type { FeedItem } from "@/lib/feed/feed-schemas";
import type { FeedStatus } from "./use-feed";
import { foldRuns } from "./feed-items";

const statusLabels: Record<FeedStatus, { text: string; dot: string }> = {
  loading: { text: "Loading…", dot: "bg-slate-300" },
  live: { text: "Live", dot: "bg-emerald-500 animate-pulse" },
  reconnecting: { text: "Reconnecting…", dot: "bg-amber-400" },
  offline: { text: "Offline, still retrying", dot: "bg-rose-500" },
  error: { text: "Not connected", dot: "bg-rose-500" },
};

/** The keys that move the view towards older items: they pause following. */
const PAUSE_KEYS = { oldestFirst: new Set(["ArrowUp", "PageUp", "Home"]), newestFirst: new Set(["ArrowDown", "PageDown", "End"]) };

export interface FeedListProps {
  items: FeedItem[];
  status: FeedStatus;
  slug: string;
  agents: Map<string, AgentRef>;
  rooms: Map<string, string>;
  sessions: Map<string, string>;
  activeThread: string | undefined;
  onThread: (threadId: string) => void;
  older: "unknown" | "loading" | "none";
  onLoadOlder: () => void;
  emptyText: string;
  /** Newest at the top (the default), following new items there; else newest at the bottom. */
  newestFirst: boolean;
  onOrder: (newestFirst: boolean) => void;
}

/**
 * The feed as a virtualised list, newest at the top (or at the bottom, as the
 * reader chooses). While live it follows new items; paused (by the button, or
 * by scrolling towards older items) it stays put and counts what arrived since.
 */
export function FeedList({ items: held, status, slug, agents, rooms, sessions, activeThread, onThread, older, onLoadOlder, emptyText, newestFirst, onOrder }: FeedListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  /** The last seq seen before pausing; null while following. */
  const [pausedAfter, setPausedAfter] = useState<number | null>(null);
  const paused = pausedAfter !== null;
  // Held oldest first; a run's start folded into its end (not while paused: that would take rows away from under the
  // reader); shown in the chosen order.
  const { items, startOf } = useMemo(() => {
    const { shown, startOf } = foldRuns(held, pausedAfter ?? Infinity);
    return { items: newestFirst ? [...shown].reverse() : shown, startOf };
  }, [held, newestFirst, pausedAfter]);
  const empty = held.length === 0;
  const lastSeq = empty ? 0 : held[held.length - 1]!.seq;

  // The virtualizer hands out fresh functions on every render by design; nothing here is memoised by a compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 56,
    overscan: 10,
    getItemKey: (index) => items[index]?.seq ?? index,
    // Keep what is on screen in place when items are added above or below it; follow new ones while live: at the
    // bottom by following appends, at the top by staying there (nothing to hold in place).
    anchorTo: newestFirst && !paused ? "start" : "end",
    followOnAppend: paused || newestFirst ? false : "auto",
  });

  // Opened with items already here (read on the server, or kept from an earlier visit): start at the newest, as
  // following does; a list that opens empty is brought there by following its first items.
  const startedAtEnd = useRef(false);
  useEffect(() => {
    if (startedAtEnd.current || items.length === 0) return;
    startedAtEnd.current = true;
    if (!newestFirst) virtualizer.scrollToIndex(items.length - 1, { align: "end" });
  }, [items.length, virtualizer, newestFirst]);

  let unseen = 0;
  if (paused) {
    for (let i = held.length - 1; i >= 0 && held[i]!.seq > pausedAfter; i--) unseen++;
  }

  const pause = () => {
    if (!paused) setPausedAfter(lastSeq);
  };
  const resume = () => {
    setPausedAfter(null);
    if (items.length === 0) return;
    if (newestFirst) virtualizer.scrollToOffset(0);
    else virtualizer.scrollToIndex(items.length - 1, { align: "end" });
  };
  const pauseKeys = newestFirst ? PAUSE_KEYS.newestFirst : PAUSE_KEYS.oldestFirst;

  // Paused, the dot goes off and says so, whatever the connection is doing underneath (it keeps collecting).
  const { text, dot } = paused && status === "live" ? { text: "Paused", dot: "bg-slate-400" } : statusLabels[status];
  return (
    <div className="flex h-full min-h-0 flex-col">
      <div className="flex flex-wrap items-center gap-3 border-b border-slate-200 px-4 py-2 text-sm">
        <span className="inline-flex items-center gap-1.5 text-xs font-medium text-slate-600" role="status" data-testid="feed-status" data-status={status} data-paused={paused}>
          <span aria-hidden className={`h-2 w-2 rounded-full ${dot}`} />
          {text}
        </span>
        <span
          className="text-xs text-slate-500"
          data-testid="feed-count"
          data-count={held.length}
          data-first-seq={held[0]?.seq ?? 0}
          data-last-seq={lastSeq}
        >
          {held.length.toLocaleString("en")} {held.length === 1 ? "item" : "items"}
        </span>
        {older !== "none" && items.length > 0 ? (
          <button type="button" className="text-xs font-medium text-indigo-700 hover:underline disabled:text-slate-500" disabled={older === "loading"} onClick={onLoadOlder}>
            {older === "loading" ? "Loading older…" : "Load older"}
          </button>
        ) : null}
        <div className="ml-auto flex items-center gap-2">
          <label className="flex items-center gap-1.5 text-xs text-slate-600">
            <span className="sr-only sm:not-sr-only">Order</span>
            <select className="input w-32 py-0.5 text-xs" value={newestFirst ? "newest" : "oldest"} onChange={(e) => onOrder(e.target.value === "newest")}>
              <option value="newest">Newest first</option>
              <option value="oldest">Oldest first</option>
            </select>
          </label>
          {paused && unseen > 0 ? (
            <span className="rounded-full bg-indigo-600 px-2 py-0.5 text-xs font-semibold text-white" data-testid="feed-unseen" aria-live="polite">
              {unseen} new
            </span>
          ) : null}
          {paused ? (
            <button type="button" className="btn-primary px-2.5 py-1 text-xs" onClick={resume}>
              ▶ Resume live
            </button>
          ) : (
            <button type="button" className="btn-secondary px-2.5 py-1 text-xs" onClick={pause}>
              ❚❚ Pause
            </button>
          )}
        </div>
      </div>

      <div
        ref={scroller}
        // A feed holds articles only: while it has none, the box is a plain one that says why, with no feed role.
        role={empty ? undefined : "feed"}
        aria-label={empty ? undefined : "World feed"}
        aria-busy={empty ? undefined : status === "loading"}
        tabIndex={empty ? undefined : 0}
        // The newest item held when the reader paused: what the "new" count counts from.
        data-paused-after={pausedAfter ?? undefined}
        className="relative min-h-0 flex-1 overflow-y-auto overscroll-contain outline-none"
        onWheel={(e) => {
          if (newestFirst ? e.deltaY > 0 : e.deltaY < 0) pause();
        }}
        onTouchMove={pause}
        onKeyDown={(e) => {
          if (pauseKeys.has(e.key)) pause();
        }}
      >
        {empty ? (
          <p className="px-4 py-10 text-center text-sm text-slate-500">{status === "loading" ? "Loading the feed…" : emptyText}</p>
        ) : (
          <div className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((row) => {
              const item = items[row.index]!;
              return (
                <div
                  key={row.key}
                  data-index={row.index}
                  ref={virtualizer.measureElement}
                  className="absolute top-0 left-0 w-full"
                  style={{ transform: `translateY(${row.start}px)` }}
                >
                  <FeedRow
                    item={item}
                    slug={slug}
                    agent={item.agentId ? agents.get(item.agentId) : undefined}
                    sessionId={item.runId ? sessions.get(item.runId) : undefined}
                    roomName={item.roomId ? rooms.get(item.roomId) : undefined}
                    activeThread={activeThread}
                    onThread={onThread}
                    position={row.index + 1}
                    total={items.length}
                    started={startOf.get(item.seq)}
                  />
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}
