"use client";

import dynamic from "next/dynamic";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef } from "react";
import { agentKeys, feedKeys, roomKeys } from "@/lib/client/query-keys";
import { useHydrated } from "@/lib/client/use-hydrated";
import { useApi, useWorkspace } from "../providers";
import type { AgentRef } from "./feed-row";
import { LazyBox } from "../ui/lazy-box";
import { matrixRanges, type MatrixRange } from "./talk-matrix-ranges";
import { agentListSchema } from "@/lib/agents/agent-schemas";
import type { FeedItem } from "@/lib/feed/feed-schemas";
import { roomListSchema } from "@/lib/rooms/room-schemas";
import { apiFilter, feedKindLabels, feedKinds, filterFromParams, filterQuery, type FeedFilter, type FeedKind } from "./feed-filter";
import { ErrorNotice } from "../ui/error-notice";
import { useFeed } from "./use-feed";


/** The world feed page: filters (kept in the URL), the live list, and who talks to whom. */
export function FeedView() {
  const api = useApi();
  const { slug } = useWorkspace();
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const filter = filterFromParams(new URLSearchParams(searchParams.toString()));
  const rangeParam = searchParams.get("range");
  const range: MatrixRange = rangeParam && rangeParam in matrixRanges ? (rangeParam as MatrixRange) : "7d";

  const agents = useQuery({ queryKey: agentKeys.list(slug), queryFn: () => api("/api/agents", { schema: agentListSchema }) });
  const rooms = useQuery({ queryKey: roomKeys.list(slug), queryFn: () => api("/api/rooms", { schema: roomListSchema }) });
  const agentList = useMemo(() => agents.data?.agents ?? [], [agents.data]);
  const agentMap = useMemo(() => new Map(agentList.map((a) => [a.id, a])), [agentList]);
  const roomMap = useMemo(() => new Map((rooms.data?.rooms ?? []).map((r) => [r.id, r.name])), [rooms.data]);
  // The address names the agent by handle; the stream asks by id, once the agents are known.
  const sent = apiFilter(filter, agents.data?.agents);
  const filterKey = sent && sent !== "unknownAgent" ? filterQuery(sent).toString() : "";
  const handleOf = (agentId: string) => agentMap.get(agentId)?.handle ?? null;
  const agentParam = filter.agent ? (agentList.find((a) => a.id === filter.agent)?.handle ?? filter.agent) : "";

  function setParams(changes: Record<string, string | null>) {
    const next = new URLSearchParams(searchParams.toString());
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    const query = next.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  }

  const shownKinds = filter.kinds ?? feedKinds;
  function toggleKind(kind: FeedKind) {
    const on = shownKinds.includes(kind);
    const next = on ? shownKinds.filter((k) => k !== kind) : [...shownKinds, kind];
    if (next.length === 0) return;
    setParams({ kind: next.length === feedKinds.length ? null : feedKinds.filter((k) => next.includes(k)).join(",") });
  }
  const filtered = !!(filter.agent || filter.to || filter.room || filter.thread || filter.kinds);
  // The feed arrives drawn from the server; its filters wait until the browser can act on them.
  const ready = useHydrated();

  return (
    <div className="mx-auto flex max-w-7xl flex-col gap-4">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">World feed</h1>
        <p className="mt-1 text-sm text-slate-600">
          Everything your agents say and do, live: messages between agents, room posts, runs, approvals. Open any item to see the run and the
          step behind it.
        </p>
      </header>

      <div role="group" aria-label="Filters" className="card space-y-3 p-3">
        <div className="flex flex-wrap items-center gap-3">
          <label className="flex items-center gap-2 text-xs font-medium text-slate-600">
            Agent
            <select className="input w-44 py-1" aria-label="Agent" value={agentParam} disabled={!ready} onChange={(e) => setParams({ agent: e.target.value || null, to: null })}>
              <option value="">All agents</option>
              {sent === "unknownAgent" ? <option value={agentParam}>@{agentParam} (not found)</option> : null}
              {agentList.map((a) => (
                <option key={a.id} value={a.handle}>
                  @{a.handle}
                </option>
              ))}
            </select>
          </label>
          <label className="flex items-center gap-2 text-xs font-medium text-slate-600">
            Room
            <select className="input w-44 py-1" value={filter.room ?? ""} disabled={!ready} onChange={(e) => setParams({ room: e.target.value || null })}>
              <option value="">All rooms</option>
              {(rooms.data?.rooms ?? []).map((r) => (
                <option key={r.id} value={r.id}>
                  #{r.name}
                </option>
              ))}
            </select>
          </label>
          {filtered ? (
            <button type="button" className="btn-secondary ml-auto py-1 text-xs" onClick={() => setParams({ agent: null, to: null, room: null, thread: null, kind: null })}>
              Clear filters
            </button>
          ) : null}
        </div>
        <fieldset className="flex flex-wrap items-center gap-1.5" disabled={!ready}>
          <legend className="float-left mr-2 text-xs font-medium text-slate-600">Kinds</legend>
          {feedKinds.map((kind) => {
            const on = shownKinds.includes(kind);
            const only = shownKinds.length === 1 && on;
            return (
              <span key={kind} className="inline-flex items-stretch">
                <button
                  type="button"
                  aria-pressed={on}
                  onClick={() => toggleKind(kind)}
                  className={`rounded-l-full py-1 pr-2 pl-2.5 text-xs font-medium ring-1 ring-inset ${on ? "bg-indigo-50 text-indigo-800 ring-indigo-200" : "bg-surface text-slate-500 line-through ring-slate-200"}`}
                >
                  {feedKindLabels[kind]}
                </button>
                {/* One kind alone in a press; pressed again, every kind comes back. */}
                <button
                  type="button"
                  aria-pressed={only}
                  aria-label={`Only ${feedKindLabels[kind].toLowerCase()}`}
                  title={only ? "Show every kind again" : `Show only ${feedKindLabels[kind].toLowerCase()}`}
                  onClick={() => setParams({ kind: only ? null : kind })}
                  className={`-ml-px rounded-r-full py-1 pr-2.5 pl-1.5 text-[11px] ring-1 ring-inset ${only ? "bg-indigo-600 font-semibold text-white ring-indigo-600" : "bg-surface text-slate-600 ring-slate-200 hover:text-indigo-800"}`}
                >
                  only
                </button>
              </span>
            );
          })}
        </fieldset>
      </div>

      <div className="grid items-start gap-4 xl:grid-cols-[minmax(0,1fr)_auto]">
        <section aria-label="Feed" className="card h-[calc(100vh-17rem)] min-h-[26rem] overflow-hidden">
          {sent === "unknownAgent" ? (
            <div role="alert" className="flex flex-wrap items-center gap-2 px-4 py-6 text-sm text-slate-700" data-testid="feed-unknown-agent">
              No agent of this workspace has the handle @{filter.to && !agentList.some((a) => a.handle === filter.to) ? filter.to : agentParam}.
              <button type="button" className="text-xs font-medium text-indigo-700 underline" onClick={() => setParams({ agent: null, to: null })}>
                Show all agents
              </button>
            </div>
          ) : sent === null ? (
            agents.isError ? (
              <ErrorNotice className="px-4 py-6" error={agents.error} fallback="Could not load the agents to filter by." />
            ) : (
              <p className="px-4 py-10 text-center text-sm text-slate-500">Loading the feed…</p>
            )
          ) : (
            <FeedStream
              key={filterKey}
              newestFirst={searchParams.get("order") !== "oldest"}
              onOrder={(newest) => setParams({ order: newest ? null : "oldest" })}
              pair={filter.to && filter.agent ? { from: agentParam, to: filter.to } : null}
              onClearPair={() => setParams({ to: null })}
              filter={sent}
              slug={slug}
              agents={agentMap}
              rooms={roomMap}
              onThread={(thread) => setParams({ thread })}
              onClearThread={() => setParams({ thread: null })}
            />
          )}
        </section>
        <aside className="xl:w-[24rem]">
          <TalkMatrix
            agents={agentList}
            range={range}
            onRange={(r) => setParams({ range: r === "7d" ? null : r })}
            onAgent={(agentId) => setParams({ agent: handleOf(agentId), to: null })}
            onPair={(from, to) => setParams({ agent: handleOf(from), to: handleOf(to), kind: null, thread: null })}
          />
        </aside>
      </div>
    </div>
  );
}

const MESSAGE_KINDS = new Set(["agent_message", "room_post"]);

// The list measures itself in the browser (it is virtualized), so it is not drawn on the server: it loads after the
// page, in the box it fills, and starts with the items read on the server or already on their way.
const FeedList = dynamic(() => import("./feed-list").then((m) => m.FeedList), { ssr: false, loading: () => <LazyBox label="Loading the feed" /> });

// Beside the feed, loaded after it in a box of its size.
const TalkMatrix = dynamic(() => import("./talk-matrix").then((m) => m.TalkMatrix), { ssr: false, loading: () => <LazyBox label="Loading who talks to whom" className="h-72 w-full" /> });

function FeedStream({
  newestFirst,
  onOrder,
  filter,
  pair,
  onClearPair,
  slug,
  agents,
  rooms,
  onThread,
  onClearThread,
}: {
  newestFirst: boolean;
  onOrder: (newestFirst: boolean) => void;
  filter: FeedFilter;
  /** A cell of who talks to whom, by handle: shown above the list with the way back to the sender's whole feed. */
  pair: { from: string; to: string } | null;
  onClearPair: () => void;
  slug: string;
  agents: Map<string, AgentRef>;
  rooms: Map<string, string>;
  onThread: (threadId: string) => void;
  onClearThread: () => void;
}) {
  const queryClient = useQueryClient();
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(refreshTimer.current), []);

  const feed = useFeed(filter, {
    onItems: (fresh: FeedItem[]) => {
      // New messages change who talks to whom: refresh the counts, at most every few seconds.
      if (refreshTimer.current || !fresh.some((i) => MESSAGE_KINDS.has(i.kind))) return;
      refreshTimer.current = setTimeout(() => {
        refreshTimer.current = undefined;
        void queryClient.invalidateQueries({ queryKey: feedKeys.matrix(slug) });
      }, 1_500);
    },
  });

  // Which runs are chat runs (their start and end items name the session), and who each thread is between.
  const { sessions, threadLabel } = useMemo(() => {
    const sessions = new Map<string, string>();
    let threadLabel: string | null = null;
    for (const item of feed.items) {
      const sessionId = item.payload.sessionId;
      if (item.runId && typeof sessionId === "string" && sessionId) sessions.set(item.runId, sessionId);
      if (!threadLabel && filter.thread && item.threadId === filter.thread && item.kind === "agent_message") {
        const pair = [item.payload.from, item.payload.to].filter((h): h is string => typeof h === "string").sort();
        if (pair.length === 2) threadLabel = `@${pair[0]} ↔ @${pair[1]}`;
      }
    }
    return { sessions, threadLabel };
  }, [feed.items, filter.thread]);

  return (
    <div className="flex h-full flex-col">
      {pair ? (
        <div className="flex items-center gap-2 border-b border-indigo-100 bg-indigo-50 px-4 py-2 text-sm text-indigo-900" data-testid="pair-filter">
          <span>
            Only what @{pair.from} sent to @{pair.to} directly (the matrix also counts posts in rooms they share: pick the room above to read those)
          </span>
          <button type="button" className="ml-auto text-xs font-medium underline" onClick={onClearPair}>
            Everything of @{pair.from}
          </button>
        </div>
      ) : null}
      {filter.thread ? (
        <div className="flex items-center gap-2 border-b border-indigo-100 bg-indigo-50 px-4 py-2 text-sm text-indigo-900" data-testid="thread-filter">
          <span>
            One conversation{threadLabel ? `: ${threadLabel}` : ""}
          </span>
          <button type="button" className="ml-auto text-xs font-medium underline" onClick={onClearThread}>
            Show all
          </button>
        </div>
      ) : null}
      {feed.status === "error" ? (
        <div className="flex items-center gap-2 border-b border-rose-100 bg-rose-50 px-4 py-2 text-sm text-rose-800">
          <ErrorNotice error={feed.error} fallback="The feed is not connected." />
          <button type="button" className="ml-auto text-xs font-medium underline" onClick={feed.retry}>
            Try again
          </button>
        </div>
      ) : null}
      <div className="min-h-0 flex-1">
        <FeedList
          key={newestFirst ? "newest" : "oldest"}
          items={feed.items}
          status={feed.status}
          slug={slug}
          agents={agents}
          rooms={rooms}
          sessions={sessions}
          activeThread={filter.thread}
          onThread={onThread}
          older={feed.older}
          onLoadOlder={() => void feed.loadOlder()}
          newestFirst={newestFirst}
          onOrder={onOrder}
          emptyText={
            filter.agent || filter.to || filter.room || filter.thread || filter.kinds
              ? "Nothing matches these filters yet. New items appear here as they happen."
              : "Nothing has happened yet. Messages, runs and approvals appear here as they happen."
          }
        />
      </div>
    </div>
  );
}
