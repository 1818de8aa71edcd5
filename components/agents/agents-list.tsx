"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { isNominal } from "@/lib/billing/prices";
import { Avatar } from "../ui/avatar";
import { useApi, useWorkspace } from "../providers";
import { AgentForm, blankAgent } from "./agent-form";
import { agentKeys } from "@/lib/client/query-keys";
import { agentListSchema, type AgentSummary } from "@/lib/agents/agent-schemas";
import type { ModelChoice, ToolChoice } from "./form-choices";
import { ErrorNotice } from "../ui/error-notice";
import { ToolChips } from "./tool-chips";

export function AgentStatusBadge({ status }: { status: AgentSummary["status"] }) {
  return status === "paused" ? (
    <span className="rounded-full bg-amber-100 px-2 py-0.5 text-[11px] font-medium text-amber-900 ring-1 ring-amber-200 ring-inset" data-testid="agent-status">
      Paused
    </span>
  ) : (
    <span className="rounded-full bg-emerald-50 px-2 py-0.5 text-[11px] font-medium text-emerald-700 ring-1 ring-emerald-200 ring-inset" data-testid="agent-status">
      Active
    </span>
  );
}

export function ModelLabel({ model }: { model: string }) {
  return isNominal(model) ? (
    <span className="rounded bg-amber-100 px-1.5 py-0.5 text-[11px] font-medium text-amber-900" title="No network; follows a command grammar">
      Offline model
    </span>
  ) : (
    <span className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] text-slate-700">{model}</span>
  );
}

export function AgentsList({ canEdit, models, tools, defaultModel }: { canEdit: boolean; models: ModelChoice[]; tools: ToolChoice[]; defaultModel: string }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const router = useRouter();
  const searchParams = useSearchParams();
  const queryClient = useQueryClient();
  // `?new=1` (the overview's empty state links there) opens the form straight away.
  const [creating, setCreating] = useState(() => canEdit && searchParams.get("new") === "1");
  const agents = useQuery({ queryKey: agentKeys.list(slug), queryFn: () => api("/api/agents", { schema: agentListSchema }) });

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <header className="flex flex-wrap items-end gap-4">
        <div className="min-w-0 flex-1">
          <h1 className="text-2xl font-semibold tracking-tight">Agents</h1>
          <p className="mt-1 text-sm text-slate-600">
            Who works in this workspace, on which model, with which tools. {canEdit ? "Open an agent to edit or pause it." : "Managers and owners edit agents."}
          </p>
        </div>
        {canEdit && !creating ? (
          <button type="button" className="btn-primary" onClick={() => setCreating(true)}>
            New agent
          </button>
        ) : null}
      </header>

      {creating ? (
        <section aria-labelledby="new-agent-heading" className="card p-5">
          <h2 id="new-agent-heading" className="mb-4 text-base font-semibold">
            New agent
          </h2>
          <AgentForm
            initial={blankAgent(defaultModel)}
            models={models}
            tools={tools}
            onCancel={() => setCreating(false)}
            onSaved={(agent) => {
              void queryClient.invalidateQueries({ queryKey: agentKeys.list(slug) });
              router.push(`/w/${slug}/agents/${agent.id}`);
            }}
          />
        </section>
      ) : null}

      {agents.isPending ? (
        <p role="status" className="text-sm text-slate-500">
          Loading agents…
        </p>
      ) : agents.isError ? (
        <ErrorNotice error={agents.error} fallback="Could not load the agents." />
      ) : agents.data.agents.length === 0 ? (
        <p className="card p-6 text-sm text-slate-600">This workspace has no agents yet.{canEdit ? " Create the first one." : ""}</p>
      ) : (
        <ul aria-label="Agents" className="grid gap-4 md:grid-cols-2">
          {agents.data.agents.map((agent) => (
            <li key={agent.id}>
              <article aria-label={`Agent @${agent.handle}`} className={`card flex h-full flex-col p-4 ${agent.status === "paused" ? "bg-slate-50" : ""}`}>
                <div className="flex items-center gap-3">
                  <Avatar name={agent.name} color={agent.color} />
                  <div className="min-w-0 flex-1">
                    <Link href={`/w/${slug}/agents/${agent.id}`} className="block truncate font-medium hover:text-indigo-700 hover:underline">
                      {agent.name}
                    </Link>
                    <div className="truncate font-mono text-xs text-slate-500">@{agent.handle}</div>
                  </div>
                  <AgentStatusBadge status={agent.status} />
                </div>
                {agent.description ? <p className="mt-3 text-sm text-slate-600">{agent.description}</p> : null}
                <dl className="mt-3 space-y-1.5 text-xs text-slate-500">
                  <div className="flex items-center gap-2">
                    <dt className="w-12 shrink-0">Model</dt>
                    <dd>
                      <ModelLabel model={agent.model} />
                    </dd>
                  </div>
                  <div className="flex gap-2">
                    <dt className="w-12 shrink-0 pt-0.5">Tools</dt>
                    <dd className="flex flex-wrap gap-1">
                      <ToolChips tools={agent.tools} sayNone />
                    </dd>
                  </div>
                </dl>
              </article>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
