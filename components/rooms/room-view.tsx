"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useLayoutEffect, useMemo, useRef, useState } from "react";
import { Time } from "../ui/time";
import { Markdown } from "../markdown/lazy-markdown";
import { Avatar } from "../ui/avatar";
import { useFeed } from "../feed/use-feed";
import { useApi, useWorkspace } from "../providers";
import { roomKeys } from "@/lib/client/query-keys";
import { roomDetailSchema, roomPostSchema } from "@/lib/rooms/room-schemas";
import { CannotOpen, ErrorNotice } from "../ui/error-notice";

const STICKY_PX = 120;

/** A room: its members, what was said, and a box to post in it. Follows the room's part of the feed live. */
export function RoomView({ roomId }: { roomId: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const key = roomKeys.detail(slug, roomId);
  const room = useQuery({ queryKey: key, queryFn: () => api(`/api/rooms/${roomId}`, { schema: roomDetailSchema }) });
  const [draft, setDraft] = useState("");

  // The room's feed says when something was posted (refetch the messages) and which members are still answering.
  const feed = useFeed(
    { room: roomId },
    {
      limit: 50,
      onItems: (items) => {
        if (items.some((i) => i.kind === "room_post")) void queryClient.invalidateQueries({ queryKey: key });
      },
    },
  );
  const working = useMemo(() => {
    const open = new Map<string, string>();
    for (const item of feed.items) {
      if (!item.runId) continue;
      if (item.kind === "run_started" && typeof item.payload.agent === "string") open.set(item.runId, item.payload.agent);
      if (item.kind === "run_finished") open.delete(item.runId);
    }
    return [...new Set(open.values())].sort();
  }, [feed.items]);

  /** The post this page sent, until the room's messages include it. */
  const [posted, setPosted] = useState<{ messageId: string; text: string } | null>(null);
  const post = useMutation({
    mutationFn: (text: string) => api(`/api/rooms/${roomId}/messages`, { method: "POST", body: { text }, schema: roomPostSchema }),
    onSuccess: ({ messageId }, text) => {
      setPosted({ messageId, text });
      void queryClient.invalidateQueries({ queryKey: key });
    },
    onError: (_error, text) => setDraft((current) => current || text),
  });

  const messages = room.data?.room.messages ?? [];
  const pendingText = post.isPending ? post.variables : posted && !messages.some((m) => m.id === posted.messageId) ? posted.text : null;
  const scroller = useRef<HTMLOListElement>(null);
  const sticky = useRef(true);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && sticky.current) el.scrollTop = el.scrollHeight;
  }, [messages.length, working.length, pendingText]);

  if (room.isError) {
    return (
      <CannotOpen what="room" error={room.error} fallback="Could not load the room." back={{ href: `/w/${slug}/rooms`, label: "Back to rooms" }} />
    );
  }
  if (!room.data) {
    return (
      <p role="status" className="py-12 text-center text-sm text-slate-500">
        Loading the room…
      </p>
    );
  }
  const { name, subject, members } = room.data.room;
  const colors = new Map(members.map((m) => [m.handle, m]));

  function submit() {
    const text = draft.trim();
    if (!text || post.isPending) return;
    setDraft("");
    post.mutate(text);
  }

  return (
    <div className="mx-auto flex h-[calc(100vh-4rem)] min-h-[28rem] max-w-5xl gap-4">
      <div className="card flex min-w-0 flex-1 flex-col overflow-hidden">
        <header className="border-b border-slate-200 px-5 py-3">
          <nav aria-label="Breadcrumb" className="text-xs text-slate-500">
            <Link href={`/w/${slug}/rooms`} className="hover:text-indigo-700 hover:underline">
              Rooms
            </Link>
          </nav>
          <h1 className="font-mono text-lg font-semibold tracking-tight">#{name}</h1>
          {subject ? <p className="text-sm text-slate-600">{subject}</p> : null}
          <p className="mt-1 font-mono text-xs text-slate-500 lg:hidden">Members: {members.map((m) => `@${m.handle}`).join(", ")}</p>
        </header>

        <ol
          ref={scroller}
          aria-label="Room messages"
          className="min-h-0 flex-1 space-y-4 overflow-y-auto px-5 py-4"
          onScroll={(e) => {
            const el = e.currentTarget;
            sticky.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICKY_PX;
          }}
        >
          {messages.length === 0 && !pendingText ? (
            <li className="py-10 text-center text-sm text-slate-500">Nothing said here yet. A post reaches every member agent, and each answers here.</li>
          ) : null}
          {messages.map((m) => {
            const agent = m.fromAgent ? colors.get(m.fromAgent) : undefined;
            const who = m.fromAgent ? `@${m.fromAgent}` : (m.fromUser ?? "Someone");
            return (
              <li key={m.id}>
                <article aria-label={`Message from ${who}`} className="flex gap-3">
                  <Avatar name={agent?.name ?? m.fromAgent ?? m.fromUser ?? "?"} color={agent?.color ?? (m.fromAgent ? "#6366f1" : "#475569")} />
                  <div className="min-w-0 flex-1">
                    <div className="flex items-baseline gap-2 text-xs">
                      <span className={`text-sm font-semibold ${m.fromAgent ? "font-mono text-slate-800" : "text-slate-900"}`}>{who}</span>
                      {m.fromUser ? <span className="rounded bg-slate-100 px-1.5 text-[10px] font-medium text-slate-600 uppercase">person</span> : null}
                      <Time className="text-slate-500" at={m.createdAt} />
                      {m.runId ? (
                        <Link href={`/w/${slug}/runs/${m.runId}`} className="ml-auto text-indigo-700 hover:underline">
                          run
                        </Link>
                      ) : null}
                    </div>
                    {m.fromAgent ? <Markdown text={m.body} /> : <p className="text-sm break-words whitespace-pre-wrap text-slate-800">{m.body}</p>}
                  </div>
                </article>
              </li>
            );
          })}
          {pendingText ? (
            <li>
              <article aria-label="Your post, sending" className="flex gap-3 opacity-60">
                <Avatar name="?" color="#475569" />
                <p className="min-w-0 flex-1 pt-1.5 text-sm break-words whitespace-pre-wrap text-slate-800">{pendingText}</p>
              </article>
            </li>
          ) : null}
          {working.length > 0 ? (
            <li role="status" className="flex items-center gap-2 text-sm text-slate-500" data-testid="room-working">
              <span aria-hidden className="h-1.5 w-1.5 animate-pulse rounded-full bg-indigo-400" />
              {working.map((h) => `@${h}`).join(", ")} {working.length === 1 ? "is" : "are"} answering…
            </li>
          ) : null}
        </ol>

        {post.isError ? (
          <ErrorNotice error={post.error} fallback="The post was not sent." className="border-t border-rose-100 bg-rose-50 px-5 py-2" />
        ) : null}
        <form
          aria-label="Post in the room"
          className="border-t border-slate-200 bg-surface p-3"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <div className="flex items-end gap-2">
            <label htmlFor="room-message" className="sr-only">
              Message
            </label>
            <textarea
              id="room-message"
              rows={2}
              maxLength={8000}
              className="input max-h-48 min-h-[2.75rem] resize-none py-2 leading-snug [field-sizing:content]"
              placeholder={`Post in #${name}…`}
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                  e.preventDefault();
                  submit();
                }
              }}
            />
            <button type="submit" className="btn-primary shrink-0" disabled={!draft.trim() || post.isPending}>
              {post.isPending ? "Posting…" : "Post"}
            </button>
          </div>
          <p className="mt-1.5 text-[11px] text-slate-500">
            Every member agent gets a turn: {members.map((m) => `@${m.handle}`).join(", ")}. Enter to post · Shift+Enter for a new line
          </p>
        </form>
      </div>

      <aside aria-label="Members" className="card hidden w-60 shrink-0 flex-col overflow-hidden lg:flex">
        <h2 className="border-b border-slate-200 px-4 py-3 text-sm font-semibold">Members</h2>
        <ul className="space-y-1 p-2">
          {members.map((m) => (
            <li key={m.id}>
              <Link href={`/w/${slug}/agents/${m.id}`} className="flex items-center gap-2.5 rounded-md px-2 py-1.5 text-sm hover:bg-slate-100">
                <Avatar name={m.name} color={m.color} size="sm" />
                <span className="min-w-0">
                  <span className="block truncate font-medium text-slate-800">{m.name}</span>
                  <span className="block truncate font-mono text-[11px] text-slate-500">@{m.handle}</span>
                </span>
                {working.includes(m.handle) ? <span className="ml-auto h-1.5 w-1.5 animate-pulse rounded-full bg-indigo-400" title="Answering" /> : null}
              </Link>
            </li>
          ))}
        </ul>
        <div className="mt-auto border-t border-slate-200 px-4 py-3 text-xs text-slate-500">
          <Link href={`/w/${slug}/feed?room=${roomId}`} className="text-indigo-700 hover:underline">
            This room in the feed →
          </Link>
        </div>
      </aside>
    </div>
  );
}
