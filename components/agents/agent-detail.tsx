"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useState } from "react";
import { formatCredits, isNominal } from "@/lib/billing/prices";
import { Avatar } from "../ui/avatar";
import { agentKeys, roomKeys } from "@/lib/client/query-keys";
import { triggerLabels } from "../feed/describe-item";
import { useApi, useWorkspace } from "../providers";
import { RunStateBadge } from "../runs/run-state-badge";
import { ComputerPanel } from "../computer/computer-panel";
import { Time } from "../ui/time";
import { AgentBudgetStatus } from "../usage/agent-budget";
import { LazyBox } from "../ui/lazy-box";
import type { AgentFormValues } from "./agent-form";
import { AgentStatusBadge, ModelLabel } from "./agents-list";
import { agentDetailSchema, agentListSchema, agentReplySchema, type AgentDetail, type AgentSummary } from "@/lib/agents/agent-schemas";
import { roomListSchema } from "@/lib/rooms/room-schemas";
import { isStaleEdit, STALE_AGENT_NOTICE, statusChange } from "./agent-edits";
import type { ModelChoice, ToolChoice } from "./form-choices";
import { CannotOpen, ErrorNotice } from "../ui/error-notice";
import { useStartChat } from "../chat/use-start-chat";
import { ToolChips } from "./tool-chips";

// Loaded when they are wanted, after the page: the form when someone edits, the door tokens below the fold.
const AgentForm = dynamic(() => import("./agent-form").then((m) => m.AgentForm), { ssr: false, loading: () => <LazyBox label="Loading the form" className="h-96 w-full" /> });
const DoorTokensPanel = dynamic(() => import("../door/door-tokens").then((m) => m.DoorTokensPanel), {
  ssr: false,
  loading: () => <LazyBox label="Loading door tokens" className="h-48 w-full" />,
});

const triggerShort: Record<string, string> = { chat: "chat message", agent_message: "agent message", room_post: "room post", mission: "mission", door: "door call" };

/** The tools that work in the agent's computer: an agent with any of them has a Computer section. */
const COMPUTER_TOOLS: ReadonlySet<string> = new Set(["shell.exec", "files.read", "files.write", "files.list", "files.delete"]);

export function AgentDetailView({ agentId, canEdit, models, tools }: { agentId: string; canEdit: boolean; models: ModelChoice[]; tools: ToolChoice[] }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [stale, setStale] = useState(false);
  const detail = useQuery({ queryKey: agentKeys.detail(slug, agentId), queryFn: () => api(`/api/agents/${agentId}`, { schema: agentDetailSchema }) });
  const agents = useQuery({ queryKey: agentKeys.list(slug), queryFn: () => api("/api/agents", { schema: agentListSchema }) });
  const rooms = useQuery({ queryKey: roomKeys.list(slug), queryFn: () => api("/api/rooms", { schema: roomListSchema }) });

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: agentKeys.detail(slug, agentId) });
    void queryClient.invalidateQueries({ queryKey: agentKeys.list(slug) });
  };
  // Someone else saved in between: say so and show their version (the edit was not applied).
  const reloadAfterStale = () => {
    setStale(true);
    setEditing(false);
    refresh();
  };
  const setStatus = useMutation({
    // Only the status, from the version this page shows: never the other fields it has cached.
    mutationFn: (input: { status: AgentSummary["status"]; agent: AgentDetail["agent"] }) =>
      api(`/api/agents/${agentId}`, { method: "PATCH", body: statusChange(input.agent, input.status), schema: agentReplySchema }),
    onMutate: () => setStale(false),
    onSuccess: refresh,
    onError: (error) => {
      if (isStaleEdit(error)) reloadAfterStale();
    },
  });
  const chat = useStartChat();

  if (detail.isError) {
    return (
      <CannotOpen what="agent" error={detail.error} fallback="Could not load the agent." back={{ href: `/w/${slug}/agents`, label: "Back to agents" }} />
    );
  }
  if (!detail.data) {
    return (
      <p role="status" className="py-12 text-center text-sm text-slate-500">
        Loading the agent…
      </p>
    );
  }

  const { agent, runs, messages, spend30d } = detail.data;
  const handles = new Map((agents.data?.agents ?? []).map((a) => [a.id, a.handle]));
  const roomNames = new Map((rooms.data?.rooms ?? []).map((r) => [r.id, r.name]));
  const paused = agent.status === "paused";
  const initial: AgentFormValues = {
    name: agent.name,
    handle: agent.handle,
    color: agent.color,
    description: agent.description,
    systemPrompt: agent.systemPrompt,
    model: agent.model,
    tools: agent.tools,
  };

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <nav aria-label="Breadcrumb" className="text-xs text-slate-500">
        <Link href={`/w/${slug}/agents`} className="hover:text-indigo-700 hover:underline">
          Agents
        </Link>{" "}
        / <span className="font-mono">@{agent.handle}</span>
      </nav>

      <header className="flex flex-wrap items-center gap-3">
        <Avatar name={agent.name} color={agent.color} />
        <div className="min-w-0">
          <h1 className="text-2xl font-semibold tracking-tight">{agent.name}</h1>
          <p className="font-mono text-xs text-slate-500">@{agent.handle}</p>
        </div>
        <AgentStatusBadge status={agent.status} />
        <div className="ml-auto flex flex-wrap gap-2">
          <button type="button" className="btn-secondary" disabled={paused || chat.isPending} onClick={() => chat.mutate(agentId)} title={paused ? "A paused agent does not take new chats" : undefined}>
            {chat.isPending ? "Starting…" : "Chat"}
          </button>
          {canEdit ? (
            <>
              <button type="button" className="btn-secondary" disabled={setStatus.isPending} onClick={() => setStatus.mutate({ status: paused ? "active" : "paused", agent })}>
                {paused ? "Resume" : "Pause"}
              </button>
              {!editing ? (
                <button
                  type="button"
                  className="btn-primary"
                  onClick={() => {
                    setStale(false);
                    setEditing(true);
                  }}
                >
                  Edit
                </button>
              ) : null}
            </>
          ) : null}
        </div>
      </header>
      {stale ? (
        <p role="alert" className="rounded-md border border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900" data-testid="agent-stale">
          {STALE_AGENT_NOTICE}
        </p>
      ) : (setStatus.isError && !isStaleEdit(setStatus.error)) || chat.isError ? (
        <ErrorNotice error={setStatus.error ?? chat.error} fallback="Something went wrong." />
      ) : null}
      {paused ? (
        <p className="rounded-md border border-amber-200 bg-amber-50 px-4 py-2 text-sm text-amber-900">
          Paused: {agent.name} takes no new work until {canEdit ? "you resume it" : "a manager resumes it"}.
        </p>
      ) : null}

      {editing ? (
        <section aria-labelledby="edit-heading" className="card p-5">
          <h2 id="edit-heading" className="mb-4 text-base font-semibold">
            Edit {agent.name}
          </h2>
          <AgentForm
            agentId={agent.id}
            version={agent.version}
            onStale={reloadAfterStale}
            initial={initial}
            models={models}
            tools={tools}
            onCancel={() => setEditing(false)}
            onSaved={() => {
              setEditing(false);
              setStale(false);
              refresh();
            }}
          />
        </section>
      ) : (
        <div className="grid gap-4 md:grid-cols-3">
          <section aria-label="Profile" className={`card space-y-3 p-4 ${spend30d ? "md:col-span-2" : "md:col-span-3"}`}>
            {agent.description ? <p className="text-sm text-slate-700">{agent.description}</p> : null}
            <dl className="space-y-2 text-sm">
              <div className="flex items-center gap-3">
                <dt className="w-16 shrink-0 text-xs text-slate-500">Model</dt>
                <dd className="flex items-center gap-2">
                  <ModelLabel model={agent.model} />
                  {isNominal(agent.model) ? null : <span className="font-mono text-xs text-slate-500">{agent.model}</span>}
                </dd>
              </div>
              <div className="flex gap-3">
                <dt className="w-16 shrink-0 pt-0.5 text-xs text-slate-500">Tools</dt>
                <dd className="flex flex-wrap gap-1" data-testid="agent-tools">
                  <ToolChips tools={agent.tools} sayNone />
                </dd>
              </div>
            </dl>
            <details className="text-sm">
              <summary className="cursor-pointer text-xs font-medium text-slate-600">System prompt</summary>
              <p className="mt-2 rounded-md bg-slate-50 p-3 font-mono text-xs leading-relaxed whitespace-pre-wrap text-slate-700 ring-1 ring-slate-200">
                {agent.systemPrompt || "(none)"}
              </p>
            </details>
          </section>
          {spend30d ? (
            <section aria-label="Spend over 30 days" className="card p-4">
              <h2 className="text-xs font-medium text-slate-500">Spend, last 30 days</h2>
              <p className="mt-1 text-2xl font-semibold tabular-nums" data-testid="agent-spend">
                {formatCredits(spend30d.credits)}
              </p>
              <p className="text-xs text-slate-500">
                {spend30d.calls.toLocaleString("en")} model {spend30d.calls === 1 ? "call" : "calls"}
                {isNominal(agent.model) ? " · nominal price (offline model)" : ""}
              </p>
              <AgentBudgetStatus agentId={agentId} />
            </section>
          ) : null}
        </div>
      )}

      {canEdit ? <DoorTokensPanel agentId={agentId} /> : null}

      {agent.tools.some((tool) => COMPUTER_TOOLS.has(tool)) ? <ComputerPanel agentId={agent.id} canManage={canEdit} /> : null}

      <div className="grid gap-6 lg:grid-cols-2">
        <section aria-labelledby="runs-heading" className="space-y-2">
          <h2 id="runs-heading" className="text-sm font-semibold tracking-wide text-slate-500 uppercase">
            Recent runs
          </h2>
          {runs.length === 0 ? (
            <p className="card p-4 text-sm text-slate-500">No runs yet.</p>
          ) : (
            <ul className="card divide-y divide-slate-100" aria-label="Recent runs">
              {runs.map((run) => (
                <li key={run.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 py-2.5 text-sm">
                  <Time at={run.createdAt} className="w-24 shrink-0 text-xs text-slate-500 tabular-nums" />
                  <Link href={`/w/${slug}/runs/${run.id}`} className="font-medium text-slate-800 hover:text-indigo-700 hover:underline" title={`Started by ${triggerLabels[run.trigger] ?? run.trigger}`}>
                    {triggerShort[run.trigger] ?? run.trigger}
                  </Link>
                  <RunStateBadge state={run.state} />
                  {run.sessionId ? (
                    <Link href={`/w/${slug}/chat/${run.sessionId}`} className="text-xs text-indigo-700 hover:underline">
                      open chat
                    </Link>
                  ) : null}
                  {run.credits !== null ? <span className="ml-auto text-xs text-slate-500 tabular-nums">{formatCredits(run.credits)}</span> : null}
                  {run.error ? <p className="basis-full truncate text-xs text-rose-700">{run.error}</p> : null}
                </li>
              ))}
            </ul>
          )}
        </section>

        <section aria-labelledby="messages-heading" className="space-y-2">
          <h2 id="messages-heading" className="text-sm font-semibold tracking-wide text-slate-500 uppercase">
            Recent messages
          </h2>
          {messages.length === 0 ? (
            <p className="card p-4 text-sm text-slate-500">No messages with other agents yet.</p>
          ) : (
            <ul className="card divide-y divide-slate-100" aria-label="Recent messages">
              {messages.map((m) => {
                const outgoing = m.fromAgentId === agent.id;
                const other = outgoing ? m.toAgentId : m.fromAgentId;
                const where = m.roomId
                  ? `#${roomNames.get(m.roomId) ?? "room"}`
                  : other
                    ? `${outgoing ? "→" : "←"} @${handles.get(other) ?? "agent"}`
                    : outgoing
                      ? "→"
                      : "← a person";
                return (
                  <li key={m.id} className="px-4 py-2.5 text-sm">
                    <div className="flex items-center gap-2 text-xs text-slate-500">
                      <span className="font-mono font-medium text-slate-700">{where}</span>
                      <Time at={m.createdAt} className="tabular-nums" />
                      {m.runId ? (
                        <Link href={`/w/${slug}/runs/${m.runId}`} className="ml-auto text-indigo-700 hover:underline">
                          run
                        </Link>
                      ) : null}
                    </div>
                    <p className="mt-0.5 line-clamp-3 break-words whitespace-pre-wrap text-slate-700">{m.body}</p>
                  </li>
                );
              })}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
