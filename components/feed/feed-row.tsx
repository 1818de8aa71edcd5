"use client";

import Link from "next/link";
import { memo } from "react";
import type { FeedItem } from "@/lib/feed/feed-schemas";
import { describeFeedItem, runHref, type Tone } from "./describe-item";
import { Time } from "../ui/time";

export interface AgentRef {
  id: string;
  handle: string;
  name: string;
  color: string;
}

const toneStyles: Record<Tone, { badge: string; label: string }> = {
  message: { badge: "bg-indigo-50 text-indigo-700 ring-indigo-200", label: "message" },
  room: { badge: "bg-sky-50 text-sky-700 ring-sky-200", label: "room" },
  run: { badge: "bg-slate-100 text-slate-600 ring-slate-200", label: "run" },
  ok: { badge: "bg-emerald-50 text-emerald-700 ring-emerald-200", label: "done" },
  fail: { badge: "bg-rose-50 text-rose-700 ring-rose-200", label: "failed" },
  approval: { badge: "bg-violet-50 text-violet-700 ring-violet-200", label: "approval" },
  warn: { badge: "bg-amber-50 text-amber-800 ring-amber-200", label: "stopped" },
  muted: { badge: "bg-slate-100 text-slate-500 ring-slate-200", label: "note" },
};

const kindBadges: Record<string, string> = {
  agent_message: "message",
  room_post: "room",
  run_started: "run",
  run_finished: "run",
  approval_requested: "approval",
  approval_decided: "approval",
  budget_alert: "budget",
  thread_limit: "stopped",
  agent_paused: "paused",
};


export interface FeedRowProps {
  item: FeedItem;
  slug: string;
  agent: AgentRef | undefined;
  /** The chat session of the item's run, when it is a chat run. */
  sessionId: string | undefined;
  roomName: string | undefined;
  /** The thread being shown, so its chip is not offered again. */
  activeThread: string | undefined;
  onThread: (threadId: string) => void;
  position: number;
  total: number;
  /** For a run's end: its start, said on the same line. */
  started?: FeedItem;
}

/** One feed item: when, what kind, what happened, and where to read more. */
export const FeedRow = memo(function FeedRow({ item, slug, agent, sessionId, roomName, activeThread, onThread, position, total, started }: FeedRowProps) {
  const { headline, quote, tags, tone } = describeFeedItem(item, { room: roomName, started });
  const style = toneStyles[tone];
  const target = runHref(slug, item) ?? (item.roomId ? `/w/${slug}/rooms/${item.roomId}` : null);
  const label = quote ? `${headline}: ${quote}` : headline;
  return (
    // On a phone the time, the dot and the links make a line of their own above the text, which then has the row's
    // whole width; from `sm` up they are columns beside it.
    <article
      aria-label={label}
      aria-posinset={position}
      aria-setsize={total}
      data-seq={item.seq}
      data-folded-seq={started?.seq}
      data-kind={item.kind}
      className="group grid grid-cols-[auto_auto_minmax(0,1fr)] items-center gap-x-3 gap-y-1 border-b border-slate-100 px-4 py-2.5 hover:bg-slate-50 sm:flex sm:items-start"
    >
      <Time at={item.at} className="shrink-0 text-[11px] text-slate-500 tabular-nums sm:w-20 sm:pt-0.5" />
      <span
        aria-hidden
        className="h-2.5 w-2.5 shrink-0 rounded-full ring-2 ring-white sm:mt-1.5"
        style={{ backgroundColor: agent?.color ?? "#94a3b8" }}
        title={agent ? `@${agent.handle}` : undefined}
      />
      <div className="col-span-3 min-w-0 sm:flex-1">
        <p className="line-clamp-2 text-sm leading-snug break-words text-slate-800">
          <span className={`mr-2 inline-block rounded px-1.5 py-px align-[1px] text-[10px] font-semibold tracking-wide uppercase ring-1 ring-inset ${style.badge}`}>
            {kindBadges[item.kind] ?? style.label}
          </span>
          {target ? (
            <Link href={target} className="font-medium text-slate-900 hover:text-indigo-700 hover:underline" data-testid="feed-item-link">
              {headline}
            </Link>
          ) : (
            <span className="font-medium text-slate-900">{headline}</span>
          )}
          {quote ? <span className="text-slate-600">: {quote}</span> : null}
          {tags.map((tag) => (
            <span
              key={tag}
              className={`ml-1.5 inline-block rounded px-1.5 py-px align-[1px] text-[11px] leading-4 ${tag.startsWith("⚠") ? "bg-amber-50 text-amber-800 ring-1 ring-amber-200 ring-inset" : "bg-slate-100 text-slate-600"}`}
            >
              {tag}
            </span>
          ))}
        </p>
      </div>
      <div role="group" aria-label="Open" className="col-start-3 row-start-1 flex shrink-0 flex-wrap items-center justify-end gap-x-2 gap-y-0.5 text-xs text-slate-500 sm:pt-0.5">
        {sessionId ? (
          <Link href={`/w/${slug}/chat/${sessionId}${item.stepId ? `#step-${item.stepId}` : ""}`} className="hover:text-indigo-700 hover:underline">
            Chat
          </Link>
        ) : null}
        {item.approvalId ? (
          <Link href={`/w/${slug}/approvals?approval=${item.approvalId}`} className="hover:text-indigo-700 hover:underline">
            Approval
          </Link>
        ) : null}
        {item.roomId ? (
          <Link href={`/w/${slug}/rooms/${item.roomId}`} className="hover:text-indigo-700 hover:underline">
            {roomName ? `#${roomName}` : "Room"}
          </Link>
        ) : null}
        {item.threadId && item.threadId !== activeThread ? (
          <button type="button" className="hover:text-indigo-700 hover:underline" onClick={() => onThread(item.threadId!)} title="Show only this conversation">
            Thread
          </button>
        ) : null}
      </div>
    </article>
  );
});
