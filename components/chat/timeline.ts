import { z } from "zod/mini";
import { followEventStream } from "@/lib/client/event-stream";
import { AppError } from "@/lib/errors";
import { isTerminal, parseRunEvent, type RunEvent, type RunEventPayload } from "@/lib/journal/run-events";
import type { DecisionChannel } from "@/lib/decision-channels";

/**
 * A reply rebuilt from its run's events: text and tool steps in the order they
 * happened. Applying the same events (live, replayed, or both) always gives the
 * same timeline, because each event is applied once, by sequence number.
 */
export type Preview = RunEventPayload<"step_started">["preview"];

export interface StepView {
  key: string;
  tool: string;
  input: unknown;
  status: string;
  output: unknown;
  error: string | null;
  taint: string[];
  preview: Preview;
  durationMs: number | null;
  /** What the step printed while it ran (a command's output), in order. */
  live?: string;
  /** Set when the call needed a person's approval. */
  approval?: StepApproval;
}

export interface StepApproval {
  id: string;
  category: string;
  reason: string;
  expiresAt: string;
  taintSources: { source: string; stepId: string | null }[];
  status: "pending" | "approved" | "rejected" | "expired" | "withdrawn";
  decisionReason: string | null;
  inputEdited: boolean;
  /** Who decided ("Rita", "the judge"), when, and where: null until decided, or when no one did (expired, withdrawn). */
  decidedBy?: string | null;
  decidedAt?: string | null;
  via?: DecisionChannel | null;
  /** The input the agent asked for, kept when a reviewer's edit replaced it. */
  askedInput?: unknown;
}

/** A run that reached its spending cap asks whether it may go on: a request with no tool call behind it. */
export interface CapRequestView {
  key: string;
  title: string;
  approval: StepApproval;
}

export type TimelineItem = { kind: "text"; text: string } | { kind: "step"; step: StepView } | { kind: "cap"; request: CapRequestView };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens read from the provider's cache (charged at its cache price), besides `inputTokens`. */
  cacheReadTokens: number;
  /** Null when the viewer may not see spend. */
  credits: number | null;
  estimated: boolean;
}

export type Outcome =
  | { state: "running" }
  | { state: "succeeded" }
  | { state: "failed"; code: string; message: string }
  | { state: "cancelled"; reason: string };

export interface Timeline {
  runId: string;
  /** The last sequence number applied; events at or below it are ignored. */
  lastSeq: number;
  started: boolean;
  items: TimelineItem[];
  text: string;
  thinking: string;
  usage: Usage | null;
  taint: string[];
  outcome: Outcome;
  /** The approval the run is suspended on, if any. */
  waitingFor: string | null;
}

export function emptyTimeline(runId: string): Timeline {
  return { runId, lastSeq: 0, started: false, items: [], text: "", thinking: "", usage: null, taint: [], outcome: { state: "running" }, waitingFor: null };
}

export const isDone = (timeline: Timeline | undefined) => !!timeline && timeline.outcome.state !== "running";

function appendText(items: TimelineItem[], delta: string): TimelineItem[] {
  const last = items[items.length - 1];
  if (last?.kind === "text") return [...items.slice(0, -1), { kind: "text", text: last.text + delta }];
  return [...items, { kind: "text", text: delta }];
}

function updateStep(items: TimelineItem[], stepId: string, update: (step: StepView) => StepView): TimelineItem[] {
  return items.map((item) => (item.kind === "step" && item.step.key === stepId ? { kind: "step", step: update(item.step) } : item));
}

export function applyRunEvent(timeline: Timeline, event: RunEvent): Timeline {
  if (event.seq <= timeline.lastSeq) return timeline;
  const next: Timeline = { ...timeline, lastSeq: event.seq };
  switch (event.type) {
    case "run_started":
      return { ...next, started: true };
    case "text":
      return { ...next, started: true, text: next.text + event.payload.delta, items: appendText(next.items, event.payload.delta) };
    case "thinking":
      return { ...next, thinking: next.thinking + event.payload.delta };
    case "step_started": {
      const p = event.payload;
      const step: StepView = { key: p.stepId, tool: p.tool, input: p.input, status: "running", output: undefined, error: null, taint: [], preview: p.preview, durationMs: null };
      return { ...next, items: [...next.items, { kind: "step", step }] };
    }
    case "step_finished": {
      const p = event.payload;
      const known = next.items.some((item) => item.kind === "step" && item.step.key === p.stepId);
      const finish = (step: StepView): StepView => ({ ...step, status: p.status, output: p.output, error: p.error, taint: p.taint, durationMs: p.durationMs });
      if (known) return { ...next, items: updateStep(next.items, p.stepId, finish) };
      const step = finish({ key: p.stepId, tool: p.tool, input: undefined, status: p.status, output: undefined, error: null, taint: [], preview: null, durationMs: null });
      return { ...next, items: [...next.items, { kind: "step", step }] };
    }
    case "tool_output":
      return { ...next, items: updateStep(next.items, event.payload.stepId, (step) => ({ ...step, live: (step.live ?? "") + event.payload.text })) };
    case "approval_required": {
      const p = event.payload;
      const approval: StepApproval = {
        id: p.approvalId,
        category: p.category,
        reason: p.reason,
        expiresAt: p.expiresAt,
        taintSources: p.taintSources,
        status: "pending",
        decisionReason: null,
        inputEdited: false,
      };
      if (p.stepId === null) return { ...next, items: [...next.items, { kind: "cap", request: { key: p.approvalId, title: p.preview?.title ?? p.reason, approval } }] };
      return { ...next, items: updateStep(next.items, p.stepId, (step) => ({ ...step, status: "awaiting_approval", approval, preview: step.preview ?? p.preview })) };
    }
    case "run_suspended":
      return { ...next, waitingFor: event.payload.approvalId };
    case "approval_decided": {
      const p = event.payload;
      const decided = (approval: StepApproval): StepApproval => ({
        ...approval,
        status: p.status,
        decisionReason: p.reason,
        inputEdited: p.inputEdited,
        decidedBy: p.byJudge ? "the judge" : (p.decidedByName ?? (p.decidedBy ? "a reviewer" : null)),
        decidedAt: event.at,
        via: p.via ?? null,
      });
      const items = next.items.map((item) =>
        item.kind === "cap" && item.request.approval.id === p.approvalId
          ? { kind: "cap" as const, request: { ...item.request, approval: decided(item.request.approval) } }
          : item.kind === "step" && item.step.approval?.id === p.approvalId
          ? {
              kind: "step" as const,
              step: {
                ...item.step,
                // What goes out is the reviewer's edited input, not the one the agent asked for.
                ...(p.input ? { input: p.input, preview: p.preview ?? item.step.preview } : {}),
                approval: {
                  ...decided(item.step.approval),
                  ...(p.input ? { askedInput: item.step.input } : {}),
                },
              },
            }
          : item,
      );
      return { ...next, items };
    }
    case "run_resumed":
      return { ...next, waitingFor: null };
    case "run_tainted":
      return next.taint.includes(event.payload.source) ? next : { ...next, taint: [...next.taint, event.payload.source] };
    case "usage": {
      const u = event.payload;
      const before = next.usage ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, credits: 0, estimated: false };
      return {
        ...next,
        usage: {
          inputTokens: before.inputTokens + u.inputTokens,
          outputTokens: before.outputTokens + u.outputTokens,
          cacheReadTokens: before.cacheReadTokens + (u.cacheReadTokens ?? 0),
          credits: before.credits === null || u.credits === null ? null : before.credits + u.credits,
          estimated: before.estimated || u.estimated,
        },
      };
    }
    case "run_completed":
      return { ...next, waitingFor: null, outcome: { state: "succeeded" } };
    case "run_failed":
      return { ...next, waitingFor: null, outcome: { state: "failed", code: event.payload.code, message: event.payload.message } };
    case "run_cancelled":
      return { ...next, waitingFor: null, outcome: { state: "cancelled", reason: event.payload.reason } };
    default:
      return next;
  }
}

const wireEnvelope = z.looseObject({ seq: z.int().check(z.minimum(1)), at: z.string() });

/** One SSE message (its event name and data line) as a checked run event, or null for anything else. */
export function decodeRunEvent(type: string, data: string): RunEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const envelope = wireEnvelope.safeParse(json);
  if (!envelope.success) return null;
  return parseRunEvent(type, envelope.data.seq, envelope.data.at, json);
}

/**
 * Reads a finished run's journal from the start and rebuilds its timeline.
 * Used for replies loaded from history that have tool steps: the stored
 * message has the text, the journal says where each step sat in it.
 */
export async function replayRun(runId: string, workspace: string, signal?: AbortSignal): Promise<Timeline> {
  const timeout = AbortSignal.timeout(20_000);
  const stop = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let timeline = emptyTimeline(runId);
  const result: { ended: boolean; failure: AppError | null } = { ended: false, failure: null };
  await followEventStream({
    url: () => `/api/runs/${encodeURIComponent(runId)}/events?after=${timeline.lastSeq}&workspace=${encodeURIComponent(workspace)}`,
    workspace,
    signal: stop,
    maxAttempts: 2,
    onMessage: (message) => {
      const event = decodeRunEvent(message.event, message.data);
      if (!event) return;
      timeline = applyRunEvent(timeline, event);
      if (!isTerminal(event.type)) return;
      result.ended = true;
      return "stop";
    },
    onState: (state) => {
      if (state.status === "failed") result.failure = state.error;
    },
  });
  if (result.failure) throw result.failure;
  if (!result.ended) {
    signal?.throwIfAborted();
    throw new AppError("unavailable:stream", "The run took too long to read back. Try again.");
  }
  return timeline;
}
