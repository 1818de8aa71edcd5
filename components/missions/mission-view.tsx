"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { Edge } from "@xyflow/react";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useRef, useState } from "react";
import { useEventStream } from "@/lib/client/use-event-stream";
import { Markdown } from "../markdown/lazy-markdown";
import { errorText } from "../ui/error-text";
import { useApi, useWorkspace } from "../providers";
import { formatCount, formatDuration, formatUsd } from "../usage/format";
import { LazyBox } from "../ui/lazy-box";
import type { CrewFlowNode } from "./crew-node";
import { useNow } from "./use-now";
import { missionKeys } from "@/lib/client/query-keys";
import { missionOneSchema, type MissionItem, type NodeState } from "@/lib/missions/mission-schemas";
import { layoutPositions, missionStateLabels, type MissionEventItem } from "./mission-display";
import { ErrorNotice } from "../ui/error-notice";

const TERMINAL = new Set(["succeeded", "failed", "cancelled"]);

// The graph (@xyflow/react) loads after the page, in the graph's box meanwhile.
const MissionGraph = dynamic(() => import("./mission-graph").then((m) => m.MissionGraph), { ssr: false, loading: () => <LazyBox label="Loading the crew graph" /> });

/**
 * Follows a mission's journal over SSE; every event refreshes the mission and
 * is kept for the timeline and the replay slider. A reconnect continues after
 * the last event kept (each is applied once, by seq); the stream ends with the
 * mission.
 */
function useMissionEvents(missionId: string) {
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const [kept, setKept] = useState<{ missionId: string; events: MissionEventItem[] }>({ missionId, events: [] });
  const events = kept.missionId === missionId ? kept.events : [];
  const cursor = useRef({ missionId, seq: 0 });
  useEventStream(missionId, slug, {
    url: () => {
      if (cursor.current.missionId !== missionId) cursor.current = { missionId, seq: 0 };
      return `/api/missions/${encodeURIComponent(missionId)}/events?after=${cursor.current.seq}&workspace=${encodeURIComponent(slug)}`;
    },
    onMessage: (message) => {
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(message.data) as Record<string, unknown>;
      } catch {
        return;
      }
      const seq = Number(data.seq);
      if (!Number.isSafeInteger(seq) || cursor.current.missionId !== missionId || seq <= cursor.current.seq) return;
      cursor.current.seq = seq;
      setKept((k) => ({ missionId, events: k.missionId === missionId ? [...k.events, { seq, type: message.event, data }] : [{ seq, type: message.event, data }] }));
      void queryClient.invalidateQueries({ queryKey: missionKeys.detail(slug, missionId) });
      return message.event === "mission_finished" ? "stop" : undefined;
    },
  });
  return events;
}

export function MissionView({ missionId }: { missionId: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [cancelError, setCancelError] = useState<string | null>(null);
  const query = useQuery({
    queryKey: missionKeys.detail(slug, missionId),
    queryFn: () => api(`/api/missions/${missionId}`, { schema: missionOneSchema }),
    refetchInterval: (q) => (q.state.data && TERMINAL.has(q.state.data.mission.state) ? false : 5_000),
  });
  const events = useMissionEvents(missionId);
  const mission = query.data?.mission;
  const now = useNow(!!mission && !TERMINAL.has(mission.state));
  // Replay: a point in the stored journal (null: as it stands). Nothing is run again; states are read back from the events.
  const [replaySeq, setReplaySeq] = useState<number | null>(null);
  const replay = useMemo(() => (replaySeq === null ? null : replayAt(events, replaySeq)), [events, replaySeq]);
  // Where each node's last turn ended: its tokens and cost (summed over every round) are its final ones from there.
  const lastEnd = useMemo(() => {
    const ends = new Map<string, number>();
    for (const e of events) if (e.type === "node_finished") ends.set(String(e.data.nodeId ?? ""), e.seq);
    return ends;
  }, [events]);
  const replayed = replay?.states ?? null;

  const { nodes, edges } = useMemo(() => {
    if (!mission) return { nodes: [] as CrewFlowNode[], edges: [] as Edge[] };
    const positions = layoutPositions(mission.nodes, mission.edges);
    const nodes: CrewFlowNode[] = mission.nodes.map((n) => ({
      id: n.id,
      type: "crew",
      position: positions.get(n.id)!,
      draggable: false,
      connectable: false,
      ariaLabel: `${n.role}, @${n.agentHandle ?? "?"}: ${n.state}`,
      data: {
        role: n.role,
        agentHandle: n.agentHandle,
        state: replayed?.get(n.id) ?? (replayed ? "waiting" : n.state),
        // A node's tokens and cost are known once its last turn has ended: a replay shows them from that point on.
        detail:
          replaySeq !== null && !((lastEnd.get(n.id) ?? Infinity) <= replaySeq)
            ? ""
            : `${formatCount(n.inputTokens + n.outputTokens)} tokens${n.credits === null ? "" : ` · ${formatUsd(n.credits)}`}${n.round > 0 ? ` · round ${n.round + 1}` : ""}`,
      },
    }));
    const edges: Edge[] = mission.edges.map((e) => ({
      id: `${e.from}->${e.to}`,
      source: e.from,
      target: e.to,
      animated: (replayed ? replayed.get(e.to) : mission.nodes.find((n) => n.id === e.to)?.state) === "running",
    }));
    return { nodes, edges };
  }, [mission, replayed, replaySeq, lastEnd]);

  if (query.isPending) return <p role="status" className="text-sm text-slate-500">Loading the mission…</p>;
  if (query.isError || !mission) return <ErrorNotice error={query.error} fallback="Could not load the mission." />;

  const wall = mission.startedAt ? (mission.finishedAt ? Date.parse(mission.finishedAt) : now) - Date.parse(mission.startedAt) : null;
  // The header as of the replayed event: its state, the turns that had ended (their tokens and cost), the nodes done.
  const header = replay ? replayHeader(mission, events, replay, replaySeq!) : null;
  const handoffs = events.filter((e) => e.type === "handoff" && (replaySeq === null || e.seq <= replaySeq));
  const lastSeq = events.at(-1)?.seq ?? 0;
  const at = replaySeq === null ? null : events.find((e) => e.seq === replaySeq);
  const cancel = async () => {
    setCancelError(null);
    try {
      await api(`/api/missions/${missionId}/cancel`, { method: "POST" });
      void queryClient.invalidateQueries({ queryKey: missionKeys.detail(slug, missionId) });
    } catch (error) {
      setCancelError(errorText(error, "Could not stop the mission."));
    }
  };

  return (
    <div className="mx-auto w-full min-w-0 max-w-6xl space-y-6">
      <header className="flex flex-wrap items-end gap-4">
        <div className="min-w-0 flex-1">
          <p className="text-sm text-slate-600">
            <Link href={`/w/${slug}/missions`} className="hover:underline">Missions</Link> · {mission.crewName}
          </p>
          <h1 className="mt-1 break-words text-2xl font-semibold tracking-tight">{mission.goal}</h1>
          <p className="mt-1 text-sm" role="status" aria-live="polite">
            <span data-testid="mission-state" className="font-medium">{missionStateLabels[header?.state ?? mission.state]}</span>
            {header ? <span className="text-slate-600"> (replay: as of event {replaySeq})</span> : mission.error ? <span className="text-rose-700"> — {mission.error}</span> : null}
          </p>
        </div>
        {!TERMINAL.has(mission.state) ? (
          <button type="button" className="btn-danger" onClick={() => void cancel()}>
            Stop mission
          </button>
        ) : null}
      </header>
      {cancelError ? <p role="alert" className="text-sm text-rose-700">{cancelError}</p> : null}

      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        <Stat label="Tokens" value={formatCount(header ? header.tokens : mission.inputTokens + mission.outputTokens)} />
        {mission.credits !== null ? (
          <Stat
            label="Cost"
            value={`${formatUsd(header ? header.credits : mission.credits)}${mission.capCredits ? ` of a ${formatUsd(mission.capCredits)} cap` : ""}`}
          />
        ) : null}
        <Stat label="Wall time" value={formatDuration(header ? header.wall : wall)} />
        <Stat label="Nodes done" value={`${header ? header.done : mission.nodes.filter((n) => n.state === "done").length} / ${mission.nodes.length}`} />
      </dl>

      <section aria-label="Crew graph" className="card relative h-80 w-full min-w-0 overflow-hidden sm:h-96">
        <MissionGraph
          nodes={nodes}
          edges={edges}
          onOpen={(nodeId) => {
            const clicked = mission.nodes.find((n) => n.id === nodeId);
            const runId = replay ? replay.runs.get(nodeId) : clicked?.runIds.at(-1);
            if (runId) router.push(runHref(slug, runId, clicked!.stepId));
          }}
        />
      </section>

      {TERMINAL.has(mission.state) && lastSeq > 1 ? (
        <section aria-label="Replay" className="card space-y-2 p-4">
          <label htmlFor="mission-replay" className="label">
            Replay: {at ? `event ${at.seq} of ${lastSeq} — ${at.type.replace(/_/g, " ")}` : "as it ended"}
          </label>
          <input
            id="mission-replay"
            type="range"
            className="w-full"
            min={1}
            max={lastSeq}
            value={replaySeq ?? lastSeq}
            onChange={(e) => {
              const seq = Number(e.target.value);
              setReplaySeq(seq >= lastSeq ? null : seq);
            }}
          />
        </section>
      ) : null}

      <ul aria-label="Nodes" className="grid gap-2 sm:grid-cols-2">
        {mission.nodes.map((n) => {
          // In a replay, the run the node had at that point (none before it started).
          const runId = replay ? replay.runs.get(n.id) : n.runIds.at(-1);
          const state = replayed ? (replayed.get(n.id) ?? "waiting") : n.state;
          return (
            <li key={n.id} className="card flex flex-wrap items-center gap-2 p-3 text-sm" data-node={n.id} data-state={state}>
              <span className="font-semibold">{n.role}</span>
              <span className="font-mono text-xs text-slate-600">@{n.agentHandle}</span>
              <span className="text-xs text-slate-700">{state.replace("_", " ")}</span>
              {runId ? (
                <Link className="ml-auto text-xs font-medium text-indigo-700 hover:underline" href={runHref(slug, runId, n.stepId)}>
                  Open run
                </Link>
              ) : null}
              {!replay && n.state === "awaiting_approval" ? (
                <Link className="text-xs font-medium text-amber-800 hover:underline" href={`/w/${slug}/approvals`}>
                  Review in approvals
                </Link>
              ) : null}
            </li>
          );
        })}
      </ul>

      <div className="grid gap-6 lg:grid-cols-2">
        <section aria-labelledby="handoffs-heading" className="card p-4">
          <h2 id="handoffs-heading" className="mb-2 text-base font-semibold">Handoffs</h2>
          {handoffs.length === 0 ? (
            <p className="text-sm text-slate-500">No handoff yet.</p>
          ) : (
            <ol className="space-y-2 text-sm">
              {handoffs.map((h) => {
                const from = h.data.from as { role: string; agent: string };
                const to = h.data.to as { role: string; agent: string };
                return (
                  <li key={h.seq} className="break-words">
                    <span className="font-medium">{from.role}</span> <span className="font-mono text-xs">@{from.agent}</span> →{" "}
                    <span className="font-medium">{to.role}</span> <span className="font-mono text-xs">@{to.agent}</span>
                    <p className="text-xs text-slate-600">“{String(h.data.preview ?? "")}”</p>
                  </li>
                );
              })}
            </ol>
          )}
        </section>
        <section aria-labelledby="result-heading" className="card p-4">
          <h2 id="result-heading" className="mb-2 text-base font-semibold">Result</h2>
          {replay && !replay.finished ? (
            <p className="text-sm text-slate-500">Not finished at this point of the replay.</p>
          ) : mission.result ? (
            <div data-testid="mission-result" className="break-words text-sm">
              <Markdown text={mission.result} />
            </div>
          ) : (
            <p className="text-sm text-slate-500">{TERMINAL.has(mission.state) ? "No result." : "The result appears when the last node finishes."}</p>
          )}
        </section>
      </div>
    </div>
  );
}

/** The mission as it stood after event `seq`: each node's state and run, and whether it had finished. Read from the journal only. */
function replayAt(events: MissionEventItem[], seq: number): { states: Map<string, NodeState>; runs: Map<string, string>; finished: boolean } {
  const states = new Map<string, NodeState>();
  const runs = new Map<string, string>();
  let finished = false;
  for (const e of events) {
    if (e.seq > seq) break;
    const nodeId = String(e.data.nodeId ?? "");
    if (e.type === "mission_finished") finished = true;
    if (e.type === "node_started") {
      states.set(nodeId, "running");
      if (typeof e.data.runId === "string") runs.set(nodeId, e.data.runId);
    }
    else if (e.type === "node_held") states.set(nodeId, "paused");
    else if (e.type === "node_awaiting_approval") states.set(nodeId, "awaiting_approval");
    else if (e.type === "node_finished") states.set(nodeId, e.data.state === "succeeded" ? "done" : "failed");
    else if (e.type === "mission_finished" && e.data.state !== "succeeded") {
      for (const [id, state] of states) if (state === "running" || state === "awaiting_approval") states.set(id, "cancelled");
    }
  }
  return { states, runs, finished };
}

/** The header's figures as of event `seq`: the mission's state then, and what the turns that had ended by then add up to. */
function replayHeader(
  mission: MissionItem,
  events: MissionEventItem[],
  replay: ReturnType<typeof replayAt>,
  seq: number,
): { state: MissionItem["state"]; tokens: number; credits: number; wall: number | null; done: number } {
  const turns = new Map(mission.nodes.flatMap((n) => n.turns.map((t) => [t.runId, t] as const)));
  let tokens = 0;
  let credits = 0;
  let started: number | null = null;
  let at: number | null = null;
  let state: MissionItem["state"] = "queued";
  for (const e of events) {
    if (e.seq > seq) break;
    const when = typeof e.data.at === "string" ? Date.parse(e.data.at) : NaN;
    if (Number.isFinite(when)) at = when;
    if (e.type === "mission_started") {
      state = "running";
      started = Number.isFinite(when) ? when : null;
    }
    if (e.type === "mission_finished") state = missionStates.has(String(e.data.state)) ? (String(e.data.state) as MissionItem["state"]) : mission.state;
    if (e.type === "node_finished" && typeof e.data.runId === "string") {
      const turn = turns.get(e.data.runId);
      tokens += turn?.tokens ?? 0;
      credits += turn?.credits ?? 0;
    }
  }
  const done = [...replay.states.values()].filter((s) => s === "done").length;
  return { state, tokens, credits, wall: started !== null && at !== null ? at - started : null, done };
}

const missionStates = new Set<string>(["queued", "running", "succeeded", "failed", "cancelled"]);

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="card p-3">
      <dt className="text-xs text-slate-600">{label}</dt>
      <dd className="text-lg font-semibold">{value}</dd>
    </div>
  );
}

/** A node's run, at its latest step when it has one. */
function runHref(slug: string, runId: string, stepId: string | null): string {
  return `/w/${slug}/runs/${runId}${stepId ? `#step-${stepId}` : ""}`;
}
