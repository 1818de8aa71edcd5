"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { formatCredits, isNominal } from "@/lib/billing/prices";
import { Avatar } from "../ui/avatar";
import { AssistantReply, viewFromTimeline } from "../chat/messages";
import { emptyTimeline } from "../chat/timeline";
import { activeRunStates } from "../chat/run-states";
import { runTimelineQuery, useRunStream } from "../chat/use-run";
import { triggerLabels } from "../feed/describe-item";
import { roomKeys, runKeys } from "@/lib/client/query-keys";
import { roomListSchema } from "@/lib/rooms/room-schemas";
import { runSummarySchema } from "@/lib/runs/run-schemas";
import { useApi, useWorkspace } from "../providers";
import { anchoredStepClasses, useStepAnchor } from "./use-step-anchor";
import { Time } from "../ui/time";
import { CannotOpen, ErrorCode, ErrorNotice } from "../ui/error-notice";
import { RunStateBadge } from "./run-state-badge";
import { StreamNotice } from "./stream-notice";



export function duration(from: string, to: string | null): string | null {
  if (!to) return null;
  const ms = new Date(to).getTime() - new Date(from).getTime();
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** What a run was, and its timeline replayed from the journal (followed live while it runs). */
export function RunView({ runId }: { runId: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const summary = useQuery({ queryKey: runKeys.summary(slug, runId), queryFn: () => api(`/api/runs/${runId}/summary`, { schema: runSummarySchema }) });
  const rooms = useQuery({
    queryKey: roomKeys.list(slug),
    queryFn: () => api("/api/rooms", { schema: roomListSchema }),
    enabled: !!summary.data?.run.roomId,
  });

  const state = summary.data?.run.state;
  const active = !!state && activeRunStates.has(state);
  const live = useRunStream(active ? runId : null, () => void queryClient.invalidateQueries({ queryKey: runKeys.summary(slug, runId) }));
  const replay = useQuery({ ...runTimelineQuery(slug, runId), enabled: !!state && !active });
  const timeline = active ? live.timeline : replay.data;
  const stepIds = (timeline?.items ?? []).flatMap((item) => (item.kind === "step" ? [item.step.key] : []));
  useStepAnchor(stepIds);

  if (summary.isError) {
    return (
      <CannotOpen what="run" error={summary.error} fallback="Could not load the run." back={{ href: `/w/${slug}/feed`, label: "Back to the feed" }} />
    );
  }
  if (!summary.data) {
    return (
      <p role="status" className="py-12 text-center text-sm text-slate-500">
        Loading the run…
      </p>
    );
  }

  const { run, agent } = summary.data;
  const offline = !!agent && isNominal(agent.model);
  const roomName = run.roomId ? rooms.data?.rooms.find((r) => r.id === run.roomId)?.name : undefined;
  const took = duration(run.createdAt, run.finishedAt);

  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <nav aria-label="Breadcrumb" className="text-xs text-slate-500">
        <Link href={`/w/${slug}/feed`} className="hover:text-indigo-700 hover:underline">
          Feed
        </Link>
        {agent ? (
          <>
            {" / "}
            <Link href={`/w/${slug}/agents/${agent.id}`} className="hover:text-indigo-700 hover:underline">
              @{agent.handle}
            </Link>
          </>
        ) : null}
        {" / "}
        <span className="font-mono">run {run.id.slice(0, 8)}</span>
      </nav>

      <header className="flex flex-wrap items-center gap-3">
        {agent ? <Avatar name={agent.name} color={agent.color} /> : null}
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight">Run of {agent?.name ?? "an agent"}</h1>
          <p className="text-sm text-slate-600">
            Started by {triggerLabels[run.trigger] ?? run.trigger}
            {run.hop > 0 ? ` · hop ${run.hop}` : ""}
          </p>
        </div>
        <div className="ml-auto">
          <RunStateBadge state={run.state} awaitingApproval={run.awaitingApproval} />
        </div>
      </header>

      <section aria-label="About this run" className="card p-4">
        <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
          <Fact label="Agent">
            {agent ? (
              <Link href={`/w/${slug}/agents/${agent.id}`} className="font-medium text-indigo-700 hover:underline">
                {agent.name} <span className="font-mono text-xs">@{agent.handle}</span>
              </Link>
            ) : (
              "—"
            )}
            {agent ? <div className="font-mono text-xs text-slate-500">{agent.model}</div> : null}
          </Fact>
          <Fact label="Where">
            {run.sessionId ? (
              <Link href={`/w/${slug}/chat/${run.sessionId}`} className="font-medium text-indigo-700 hover:underline">
                Open the chat →
              </Link>
            ) : run.roomId ? (
              <Link href={`/w/${slug}/rooms/${run.roomId}`} className="font-medium text-indigo-700 hover:underline">
                {roomName ? `#${roomName}` : "The room"} →
              </Link>
            ) : run.threadId ? (
              <Link href={`/w/${slug}/feed?thread=${run.threadId}`} className="font-medium text-indigo-700 hover:underline">
                The conversation between agents →
              </Link>
            ) : (
              "—"
            )}
          </Fact>
          <Fact label="Started">
            <Time at={run.createdAt} />
          </Fact>
          <Fact label="Finished">
            {run.finishedAt ? <Time at={run.finishedAt} /> : "not yet"}
            {took ? <span className="text-slate-500"> · took {took}</span> : null}
          </Fact>
          <Fact label="Tokens">
            <span data-testid="run-tokens">
              {run.inputTokens.toLocaleString("en")} in · {run.outputTokens.toLocaleString("en")} out
            </span>
          </Fact>
          {run.credits !== null ? (
            <Fact label="Cost">
              <span data-testid="run-cost">{formatCredits(run.credits)}</span>
              {offline ? <span className="text-slate-500"> (nominal price)</span> : null}
            </Fact>
          ) : null}
        </dl>
        {run.state === "failed" && run.error ? (
          <div role="alert" className="mt-4 rounded-md border border-rose-200 bg-rose-50 px-3 py-2 text-sm text-rose-800">
            {run.error} {run.errorCode ? <ErrorCode code={run.errorCode} /> : null}
          </div>
        ) : null}
      </section>

      <section aria-labelledby="input-heading" className="space-y-2">
        <h2 id="input-heading" className="text-sm font-semibold tracking-wide text-slate-500 uppercase">
          Input
        </h2>
        {run.inputText ? (
          <p className="card p-4 text-sm break-words whitespace-pre-wrap text-slate-800" data-testid="run-input">
            {run.inputText}
          </p>
        ) : run.sessionId ? (
          <p className="card p-4 text-sm text-slate-600">
            A person&apos;s message in a chat.{" "}
            <Link href={`/w/${slug}/chat/${run.sessionId}`} className="font-medium text-indigo-700 hover:underline">
              Read it in the chat
            </Link>
            .
          </p>
        ) : (
          <p className="card p-4 text-sm text-slate-500">No input text was recorded.</p>
        )}
      </section>

      <section aria-labelledby="timeline-heading" className="space-y-2">
        <h2 id="timeline-heading" className="text-sm font-semibold tracking-wide text-slate-500 uppercase">
          What it did
        </h2>
        <div className={`card p-4 ${anchoredStepClasses}`}>
          {timeline && agent ? (
            <AssistantReply agent={agent} view={viewFromTimeline(timeline)} offline={offline} />
          ) : replay.isError ? (
            <ErrorNotice error={replay.error} fallback="Could not replay this run." />
          ) : active && agent ? (
            <AssistantReply agent={agent} view={viewFromTimeline(emptyTimeline(runId))} offline={offline} />
          ) : (
            <p role="status" className="text-sm text-slate-500">
              Replaying the run…
            </p>
          )}
          <StreamNotice live={live} what="live run" className="mt-3" />
        </div>
      </section>
    </div>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="mt-0.5 text-slate-800">{children}</dd>
    </div>
  );
}
