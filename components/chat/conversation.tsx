"use client";

import { CannotOpen } from "../ui/error-notice";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ChevronLeft } from "lucide-react";
import dynamic from "next/dynamic";
import { can } from "@/lib/access/capabilities";
import Link from "next/link";
import { useLayoutEffect, useRef, useState } from "react";
import { errorMessage, isAppError } from "@/lib/errors";
import { apiStream } from "@/lib/client/api";
import { invalidateInEveryTab } from "@/lib/client/tab-sync";
import { OFFLINE_MODEL } from "@/lib/models/offline-grammar";
import { useApi, useWorkspace } from "../providers";
import { Composer } from "./composer";
import { Avatar } from "../ui/avatar";
import { AssistantReply, UserMessage, viewFromStored, viewFromTimeline, type ReplyView } from "./messages";
import { OfflineNotice } from "./offline-notice";
import { emptyTimeline, isDone, type Timeline } from "./timeline";
import { agentKeys, chatKeys } from "@/lib/client/query-keys";
import { agentListSchema } from "@/lib/agents/agent-schemas";
import { chatHistorySchema, type ChatMessage } from "@/lib/chats/chat-schemas";
import { activeRunStates } from "./run-states";
import { LazyBox } from "../ui/lazy-box";
import { anchoredStepClasses, useStepAnchor } from "../runs/use-step-anchor";
import { runOfAnswer, useFinishedTimelines, useRunStream } from "./use-run";
import { StreamNotice } from "../runs/stream-notice";

/** Pixels from the bottom within which the list keeps following new text. */
const STICKY_PX = 120;

// Rename and delete (and their dialogs) load after the chat, in a box of the buttons' size.
const ChatActions = dynamic(() => import("./chat-actions").then((m) => m.ChatActions), { ssr: false, loading: () => <LazyBox label="Loading chat actions" className="h-8 w-16" /> });

export function Conversation({ sessionId, currentUserId }: { sessionId: string; currentUserId: string }) {
  const api = useApi();
  const workspace = useWorkspace();
  const queryClient = useQueryClient();
  const sessionKey = chatKeys.session(workspace.slug, sessionId);
  const history = useQuery({ queryKey: sessionKey, queryFn: () => api(`/api/sessions/${sessionId}`, { schema: chatHistorySchema }) });
  const agents = useQuery({ queryKey: agentKeys.list(workspace.slug), queryFn: () => api("/api/agents", { schema: agentListSchema }) });

  const [draft, setDraft] = useState("");
  /** The run this page started, until the history lists it. */
  const [posted, setPosted] = useState<{ runId: string; text: string } | null>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);

  const messages = history.data?.messages ?? [];
  const lastRun = messages.findLast((m) => m.role === "assistant" && m.run)?.run ?? null;
  const historyLiveRunId = lastRun && activeRunStates.has(lastRun.state) ? lastRun.id : null;
  const liveRunId = historyLiveRunId ?? posted?.runId ?? null;

  const refreshHistory = () => {
    void queryClient.invalidateQueries({ queryKey: sessionKey });
    void queryClient.invalidateQueries({ queryKey: chatKeys.sessions(workspace.slug) });
  };
  // At the terminal event the stored reply is complete: fetch it. Until it arrives the
  // finished timeline keeps showing the same text, so nothing flashes.
  // What screen readers hear: the whole reply once it is finished, never each piece as it streams.
  const [announcement, setAnnouncement] = useState<{ runId: string; text: string } | null>(null);
  const live = useRunStream(liveRunId, (timeline) => {
    setAnnouncement({ runId: timeline.runId, text: announcementOf(history.data?.session.agent.name ?? "The agent", timeline) });
    refreshHistory();
  });
  const running = !!liveRunId && !isDone(live.timeline);

  // Finished replies with tool steps: their journals say where each step sat in the text.
  const replayIds = messages.flatMap((m) =>
    m.role === "assistant" && m.run && !activeRunStates.has(m.run.state) && m.steps.length > 0 && m.run.id !== liveRunId ? [m.run.id] : [],
  );
  const finished = useFinishedTimelines(replayIds);

  const send = useMutation({
    // The answer is the reply's event stream, handed to the run's follower: one request for a message and its reply.
    mutationFn: async (text: string) =>
      runOfAnswer(workspace.slug, await apiStream(`/api/sessions/${sessionId}/messages`, { method: "POST", body: { text }, workspace: workspace.slug })),
    onSuccess: ({ runId }, text) => {
      setPosted({ runId, text });
      // Other tabs on this chat read it again too: they show the message and follow its reply.
      invalidateInEveryTab(queryClient, [sessionKey, chatKeys.sessions(workspace.slug)]);
    },
    onError: (error, text) => {
      setDraft((current) => current || text);
      // Another tab may have started a run, or the message was taken and only its answer failed: the history shows
      // what is there, and a run in it is followed.
      void queryClient.invalidateQueries({ queryKey: sessionKey });
      // Paused meanwhile: refresh the agent so the banner shows.
      if (isAppError(error) && error.code === "conflict:agent_paused") void queryClient.invalidateQueries({ queryKey: agentKeys.list(workspace.slug) });
    },
  });
  const stop = useMutation({
    mutationFn: (runId: string) => api(`/api/runs/${runId}/cancel`, { method: "POST" }),
  });

  const session = history.data?.session;
  const offline = session?.agent.model === OFFLINE_MODEL;
  const agentRow = agents.data?.agents.find((a) => a.id === session?.agent.id);
  const agentTools = agentRow?.tools ?? null;
  const paused = agentRow?.status === "paused";
  const budgetStop = history.data?.budgetStop ?? null;
  // A reviewer (or a manager following a link) reading another person's chat: the whole history, no composer.
  const othersChat = !!session && session.userId !== currentUserId;
  const ownerName = history.data?.ownerName ?? null;
  const readOnlyReason =
    othersChat
      ? "Only the person who started this chat can write in it."
      : paused && session
        ? `@${session.agent.handle} is paused: it does not answer until a manager resumes it.`
        : budgetStop;
  const postedInHistory = !!posted && messages.some((m) => m.run?.id === posted.runId);
  const ready = history.isSuccess && !finished.pending;
  // `#step-<id>` links (from the feed, a run page or an approval) open at that step once it is on the page.
  const liveStepIds = (live.timeline?.items ?? []).flatMap((item) => (item.kind === "step" ? [item.step.key] : []));
  useStepAnchor(ready ? [...messages.flatMap((m) => m.steps.map((s) => s.id)), ...liveStepIds] : []);

  function replyView(message: ChatMessage): ReplyView {
    const run = message.run;
    if (!run) return viewFromStored(message);
    const timeline: Timeline | undefined = run.id === liveRunId ? live.timeline : finished.byRun.get(run.id);
    if (activeRunStates.has(run.state)) {
      // Stored content is empty until the end: the journal is the only truth while it runs.
      return viewFromTimeline(timeline ?? emptyTimeline(run.id));
    }
    if (timeline && isDone(timeline) && timeline.text === message.content) return viewFromTimeline(timeline);
    return viewFromStored(message);
  }

  // Follow the conversation while the reader is at the bottom.
  const scroller = useRef<HTMLDivElement>(null);
  const sticky = useRef(true);
  const liveSize = live.timeline ? live.timeline.text.length + live.timeline.items.length : 0;
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && sticky.current) el.scrollTop = el.scrollHeight;
  }, [messages.length, liveSize, ready, posted, send.isPending]);

  function submit() {
    const text = draft.trim();
    if (!text || running || send.isPending) return;
    setDraft("");
    send.mutate(text);
  }

  /** Retry: the same words again, as a new message (the earlier one and its reply stay). */
  function resend(text: string) {
    if (running || send.isPending || readOnlyReason) return;
    send.mutate(text);
  }
  const retryBlocked = running || send.isPending ? "You can send again once the reply is done." : null;
  const canWrite = !readOnlyReason;

  function fillExample(text: string) {
    setDraft(text);
    inputRef.current?.focus();
  }

  // Also when the chat was on screen: deleted meanwhile (from another tab, say), it is no longer there to write in.
  if (history.isError && (!history.data || (isAppError(history.error) && history.error.code.startsWith("not_found")))) {
    return (
      <CannotOpen what="chat" error={history.error} fallback="Could not load the chat." back={{ href: `/w/${workspace.slug}/chat`, label: "Back to chats" }} className="m-auto" />
    );
  }

  const agent = session?.agent;
  const optimisticText = send.isPending ? send.variables : posted && !postedInHistory ? posted.text : null;

  return (
    <div className="card flex h-full min-h-0 flex-col overflow-hidden">
      <header className="flex items-center gap-3 border-b border-slate-200 px-3 py-3 sm:px-5">
        {othersChat ? (
          <Link href={`/w/${workspace.slug}/approvals`} className="btn -ml-1 p-1.5 text-slate-600 hover:bg-slate-100" aria-label="Back to approvals">
            <ChevronLeft aria-hidden className="size-5" />
          </Link>
        ) : (
          <Link href={`/w/${workspace.slug}/chat`} className="btn -ml-1 p-1.5 text-slate-600 hover:bg-slate-100 lg:hidden" aria-label="All chats">
            <ChevronLeft aria-hidden className="size-5" />
          </Link>
        )}
        {agent ? <Avatar name={agent.name} color={agent.color} /> : <span className="h-8 w-8 rounded-full bg-slate-200" />}
        <div className="min-w-0 flex-1">
          <h1 className="truncate text-base font-semibold tracking-tight">
            {othersChat && agent ? (ownerName ? `${ownerName}’s chat with ${agent.name}` : `A chat with ${agent.name}`) : (session?.title ?? "Loading chat…")}
          </h1>
          {agent ? (
            <p className="truncate text-xs text-slate-500">
              {othersChat ? <>{session?.title} · </> : null}
              <span className="font-mono">@{agent.handle}</span> · <span className="font-mono">{agent.model}</span>
            </p>
          ) : null}
        </div>
        {offline ? (
          // On a phone the notice under the header says it, and the chat's title gets the room.
          <span className="hidden shrink-0 rounded bg-amber-100 px-2 py-0.5 text-[11px] font-medium text-amber-900 sm:inline" title="No network; follows a command grammar">
            Offline model
          </span>
        ) : null}
        {session && session.userId === currentUserId ? <ChatActions sessionId={sessionId} title={session.title} activeRun={running && liveRunId ? { id: liveRunId, waiting: !!live.timeline?.waitingFor } : null} /> : null}
      </header>

      {paused && agent ? <PausedBanner handle={agent.handle} slug={workspace.slug} agentId={agent.id} /> : null}
      {budgetStop && !paused ? <BudgetBanner text={budgetStop} slug={workspace.slug} canRaise={can(workspace.role, "billing.manage")} /> : null}

      <div
        ref={scroller}
        // Positioned, so that the hidden announcer at its end is placed inside it and never lengthens the page.
        className={`relative min-h-0 flex-1 overflow-y-auto px-3 py-4 sm:px-5 ${anchoredStepClasses}`}
        onScroll={(e) => {
          const el = e.currentTarget;
          sticky.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICKY_PX;
        }}
      >
        {offline ? (
          <div className="mb-4">
            <OfflineNotice tools={agentTools} expanded={messages.length === 0 && !optimisticText} onExample={fillExample} />
          </div>
        ) : null}

        {!ready || !agent ? (
          <p role="status" className="py-8 text-center text-sm text-slate-500">
            Loading conversation…
          </p>
        ) : messages.length === 0 && !optimisticText ? (
          <div className="py-10 text-center">
            <p className="text-sm font-medium text-slate-700">No messages yet</p>
            <p className="mt-1 text-sm text-slate-500">
              Ask {agent.name} something{offline ? ", or try one of the commands above" : ""}. Each tool it uses shows up as a step.
            </p>
          </div>
        ) : (
          <ol aria-label="Messages" className="space-y-5">
            {messages.map((m, i) => {
              const asked = m.role === "user" ? m.content : messages.slice(0, i).findLast((u) => u.role === "user")?.content;
              const retry = canWrite && asked ? { onRetry: () => resend(asked), retryBlocked } : {};
              return (
                <li key={m.id}>
                  {m.role === "user" ? (
                    <UserMessage text={m.content} actions={{ copyText: m.content, what: "message", ...retry }} />
                  ) : (
                    <AssistantReply agent={agent} view={replyView(m)} offline={offline} actions={retry} />
                  )}
                </li>
              );
            })}
            {optimisticText ? (
              <li key="pending-user">
                <UserMessage text={optimisticText} pending={send.isPending} />
              </li>
            ) : null}
            {posted && !postedInHistory ? (
              <li key={`pending-reply-${posted.runId}`}>
                <AssistantReply agent={agent} view={viewFromTimeline(live.timeline ?? emptyTimeline(posted.runId))} offline={offline} />
              </li>
            ) : null}
          </ol>
        )}

        {/* Visually hidden, apart from the streaming reply: announced once the reply is complete. */}
        <div aria-live="polite" aria-atomic="true" className="sr-only" data-testid="reply-announcer">
          {announcement && (liveRunId === null || liveRunId === announcement.runId) ? announcement.text : ""}
        </div>

        <StreamNotice live={live} what="live reply" className="mt-4" />
      </div>

      {/* A refusal for a spent budget is said once, by the banner the chat shows once it has read the chat again. */}
      {(send.isError && !(budgetStop && isAppError(send.error) && send.error.code === "unprocessable:budget_exceeded")) || stop.isError ? (
        <p role="alert" className="border-t border-rose-100 bg-rose-50 px-5 py-2 text-sm text-rose-700">
          {errorMessage(send.error ?? stop.error, "Something went wrong.")}
        </p>
      ) : null}
      {othersChat ? (
        <p className="border-t border-slate-200 px-5 py-3 text-sm text-slate-600" data-testid="read-only-chat">
          Read only. {ownerName ? `Only ${ownerName} writes in this chat` : "Only the person who started this chat writes in it"}; a request it waits on can be decided here or in the Approvals inbox.
        </p>
      ) : (
        <Composer
          ref={inputRef}
          value={draft}
          onChange={setDraft}
          onSend={submit}
          onStop={() => liveRunId && stop.mutate(liveRunId)}
          agentName={agent?.name ?? "the agent"}
          running={running}
          waiting={running && !!live.timeline?.waitingFor}
          onRecall={() => {
            const last = messages.findLast((m) => m.role === "user");
            if (last) setDraft(last.content);
          }}
          sending={send.isPending}
          stopping={stop.isPending || (stop.isSuccess && stop.variables === liveRunId && running)}
          readOnlyReason={readOnlyReason}
        />
      )}
    </div>
  );
}

/** "Scout replied: …", "The reply failed: …": what a screen reader says when a reply ends. */
function announcementOf(agentName: string, timeline: Timeline): string {
  const text = timeline.text.trim();
  const { outcome } = timeline;
  if (outcome.state === "failed") return `The reply failed: ${outcome.message}`;
  if (outcome.state === "cancelled") return `Stopped.${text ? ` ${agentName} had written: ${text}` : ""}`;
  return `${agentName} replied: ${text}`;
}

/** Shown while a monthly budget keeps the chat's agent from answering: managers get the way to raise it. */
function BudgetBanner({ text, slug, canRaise }: { text: string; slug: string; canRaise: boolean }) {
  return (
    <div role="status" data-testid="budget-banner" className="border-b border-amber-200 bg-amber-50 px-5 py-2 text-sm text-amber-900">
      {text}{" "}
      {canRaise ? (
        <Link href={`/w/${slug}/settings/billing`} className="font-medium underline">
          Raise the budget in Billing
        </Link>
      ) : (
        "Ask a manager to raise it."
      )}
    </div>
  );
}

/** Shown while the chat's agent is paused: nothing sent here would start it. */
function PausedBanner({ handle, slug, agentId }: { handle: string; slug: string; agentId: string }) {
  return (
    <div role="status" data-testid="paused-banner" className="border-b border-amber-200 bg-amber-50 px-5 py-2 text-sm text-amber-900">
      <span className="font-medium">@{handle} is paused.</span> It does not answer messages, room posts or other agents until a manager resumes it{" "}
      <Link href={`/w/${slug}/agents/${agentId}`} className="font-medium underline">
        on its page
      </Link>
      .
    </div>
  );
}
