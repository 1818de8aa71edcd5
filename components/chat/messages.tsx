"use client";

import { Copy, RotateCcw } from "lucide-react";
import { Avatar } from "../ui/avatar";
import { formatCredits } from "@/lib/billing/prices";
import { toast } from "../ui/toaster";
import { ErrorCode } from "../ui/error-notice";
import { Markdown } from "../markdown/lazy-markdown";
import { CapRequestCard, StepCard, TaintBadge } from "./step-card";
import type { Outcome, StepView, Timeline, TimelineItem, Usage } from "./timeline";
import type { ChatMessage } from "@/lib/chats/chat-schemas";

/** What one assistant reply shows, whether it comes from a live timeline or from stored history. */
export interface ReplyView {
  items: TimelineItem[];
  streaming: boolean;
  started: boolean;
  outcome: Outcome;
  usage: Usage | null;
  taint: string[];
  thinking: string;
  /** The run is suspended until a reviewer decides. */
  waiting: boolean;
}

export function viewFromTimeline(timeline: Timeline): ReplyView {
  return {
    items: timeline.items,
    streaming: timeline.outcome.state === "running",
    started: timeline.started,
    outcome: timeline.outcome,
    usage: timeline.usage,
    taint: timeline.taint,
    thinking: timeline.thinking,
    waiting: timeline.waitingFor !== null,
  };
}

/** A stored reply. Without its journal we do not know where in the text each step sat, so steps come first. */
export function viewFromStored(message: ChatMessage): ReplyView {
  const run = message.run;
  const steps: TimelineItem[] = [...message.steps]
    .sort((a, b) => a.position - b.position)
    .map((s) => ({
      kind: "step",
      step: { key: s.id, tool: s.tool, input: s.input, status: s.status, output: s.output, error: s.error, taint: s.taint, preview: null, durationMs: null } satisfies StepView,
    }));
  const items: TimelineItem[] = message.content ? [...steps, { kind: "text", text: message.content }] : steps;
  let outcome: Outcome = { state: "succeeded" };
  if (run?.state === "failed") outcome = { state: "failed", code: run.errorCode ?? "internal:run", message: run.error ?? "The run failed." };
  if (run?.state === "cancelled") outcome = { state: "cancelled", reason: "Stopped before the reply was finished." };
  return {
    items,
    streaming: false,
    started: true,
    outcome,
    usage: run ? { inputTokens: run.inputTokens, outputTokens: run.outputTokens, cacheReadTokens: run.cacheReadTokens, credits: run.credits, estimated: false } : null,
    taint: [...new Set(message.steps.flatMap((s) => s.taint))],
    thinking: "",
    waiting: false,
  };
}


/** What can be done with a message: always shown (phones have no hover), each button named for screen readers. */
export interface MessageActionsProps {
  /** The text Copy puts on the clipboard. */
  copyText: string;
  /** "message" or "reply", for the buttons' names. */
  what: "message" | "reply";
  /** Sends the person's text again as a new message; absent when nothing can be sent from here. */
  onRetry?: () => void;
  /** Why Retry cannot be pressed right now (a reply is being written). */
  retryBlocked?: string | null;
}

function copyToClipboard(text: string, what: string) {
  void navigator.clipboard.writeText(text).then(
    () => toast.success(what === "reply" ? "Reply copied" : "Message copied"),
    () => toast.error("Could not copy: the browser refused the clipboard."),
  );
}

export function MessageActions({ copyText, what, onRetry, retryBlocked = null }: MessageActionsProps) {
  const button = "inline-flex size-8 items-center justify-center rounded-md text-slate-500 hover:bg-slate-100 hover:text-slate-800 focus-visible:outline-2 focus-visible:outline-indigo-500 disabled:opacity-50";
  return (
    <div role="group" aria-label={what === "reply" ? "Reply actions" : "Message actions"} className="mt-1 flex gap-1" data-testid="message-actions">
      {copyText ? (
        <button type="button" className={button} aria-label={what === "reply" ? "Copy reply" : "Copy message"} title="Copy" onClick={() => copyToClipboard(copyText, what)}>
          <Copy aria-hidden className="size-4" />
        </button>
      ) : null}
      {onRetry ? (
        <button
          type="button"
          className={button}
          aria-label={what === "reply" ? "Retry: send your message again" : "Send this message again"}
          title={retryBlocked ?? "Send again"}
          disabled={!!retryBlocked}
          onClick={onRetry}>
          <RotateCcw aria-hidden className="size-4" />
        </button>
      ) : null}
    </div>
  );
}

export function UserMessage({ text, pending = false, actions }: { text: string; pending?: boolean; actions?: MessageActionsProps }) {
  return (
    <article aria-label="Your message" className="flex flex-col items-end">
      <div
        className={`max-w-[85%] rounded-2xl rounded-br-md bg-indigo-600 px-4 py-2 text-sm leading-relaxed break-words whitespace-pre-wrap text-white shadow-sm ${pending ? "opacity-70" : ""}`}
      >
        {text}
      </div>
      {actions ? <MessageActions {...actions} /> : null}
    </article>
  );
}

function UsageLine({ usage, offline, streaming }: { usage: Usage | null; offline: boolean; streaming: boolean }) {
  if (!usage) return streaming ? null : <span>No usage recorded</span>;
  const approx = usage.estimated ? "≈ " : "";
  return (
    <span data-testid="reply-usage">
      {approx}
      {usage.inputTokens.toLocaleString("en")} in
      {usage.cacheReadTokens > 0 ? ` (+ ${usage.cacheReadTokens.toLocaleString("en")} from the cache)` : ""} · {usage.outputTokens.toLocaleString("en")} out tokens
      {usage.credits !== null ? ` · ${formatCredits(usage.credits)}${offline ? " (nominal price)" : ""}` : ""}
      {streaming ? " so far" : ""}
    </span>
  );
}

/** The reply's words, as a reader would copy them (tool steps left out). */
export function replyText(view: ReplyView): string {
  return view.items
    .flatMap((item) => (item.kind === "text" && item.text.trim() ? [item.text.trim()] : []))
    .join("\n\n");
}

export function AssistantReply({ agent, view, offline, actions }: {
  agent: { id?: string; name: string; color: string };
  view: ReplyView;
  offline: boolean;
  /** Copy and Retry, once the reply is finished. */
  actions?: Omit<MessageActionsProps, "copyText" | "what">;
}) {
  const { outcome } = view;
  const hasText = view.items.some((i) => i.kind === "text" && i.text.trim());
  const lastIndex = view.items.length - 1;
  return (
    <article aria-label={`Reply from ${agent.name}`} aria-busy={view.streaming} className="flex gap-3">
      <Avatar name={agent.name} color={agent.color} />
      <div className="min-w-0 flex-1">
        <div className="mb-1 flex flex-wrap items-center gap-2">
          <span className="text-sm font-semibold text-slate-800">{agent.name}</span>
          {view.taint.map((source) => (
            <TaintBadge key={source} source={source} />
          ))}
          {view.streaming && hasText && !view.waiting ? (
            <span className="inline-flex items-center gap-1.5 text-xs text-slate-500">
              <span aria-hidden className="h-1.5 w-1.5 animate-pulse rounded-full bg-indigo-400" />
              writing…
            </span>
          ) : null}
        </div>

        {view.thinking ? (
          <details className="mb-2 text-xs text-slate-500">
            <summary className="cursor-pointer select-none">Thinking</summary>
            <p className="mt-1 border-l-2 border-slate-200 pl-3 whitespace-pre-wrap">{view.thinking}</p>
          </details>
        ) : null}

        {view.items.map((item, index) =>
          item.kind === "step" ? (
            <StepCard key={item.step.key} step={item.step} agentId={agent.id} />
          ) : item.kind === "cap" ? (
            <CapRequestCard key={item.request.key} request={item.request} />
          ) : (
            <div key={`text-${index}`} data-testid="reply-text" className="relative">
              <Markdown text={item.text} />
            </div>
          ),
        )}

        {view.streaming && (!hasText || view.items[lastIndex]?.kind !== "text") ? (
          <p role="status" className="flex items-center gap-2 py-1 text-sm text-slate-500">
            {view.waiting ? null : <TypingDots />}
            {view.waiting
              ? view.items[lastIndex]?.kind === "cap"
                ? "Paused at its spending cap until a manager decides whether it goes on."
                : "Paused until a reviewer decides on the action above."
              : view.started ? `${agent.name} is working…` : `Waiting for ${agent.name}…`}
          </p>
        ) : null}

        {outcome.state === "failed" ? (
          <div role="alert" className="mt-2 rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-800">
            <div className="font-medium">The reply failed</div>
            <p className="mt-0.5">{outcome.message}</p>
            <ErrorCode code={outcome.code} className="mt-1 block" />
          </div>
        ) : null}
        {outcome.state === "cancelled" ? (
          <p className="mt-2 inline-flex items-center gap-2 rounded-md border border-slate-200 bg-slate-100 px-3 py-1.5 text-xs text-slate-600" data-testid="reply-cancelled">
            <span aria-hidden>■</span>
            {outcome.reason || "Stopped."}
          </p>
        ) : null}

        <div className="mt-1.5 text-[11px] text-slate-500">
          <UsageLine usage={view.usage} offline={offline} streaming={view.streaming} />
        </div>
        {actions && !view.streaming && (hasText || outcome.state !== "succeeded") ? <MessageActions {...actions} copyText={replyText(view)} what="reply" /> : null}
      </div>
    </article>
  );
}

function TypingDots() {
  return (
    <span aria-hidden className="inline-flex gap-0.5">
      <span className="h-1.5 w-1.5 animate-bounce rounded-full bg-slate-400 [animation-delay:-0.3s]" />
      <span className="h-1.5 w-1.5 animate-bounce rounded-full bg-slate-400 [animation-delay:-0.15s]" />
      <span className="h-1.5 w-1.5 animate-bounce rounded-full bg-slate-400" />
    </span>
  );
}
