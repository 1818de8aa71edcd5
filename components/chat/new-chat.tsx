"use client";

import { useQuery } from "@tanstack/react-query";
import { errorMessage } from "@/lib/errors";
import { OFFLINE_MODEL } from "@/lib/models/offline-grammar";
import { useApi, useWorkspace } from "../providers";
import { Avatar } from "../ui/avatar";
import { agentKeys } from "@/lib/client/query-keys";
import { agentListSchema } from "@/lib/agents/agent-schemas";
import { useStartChat } from "./use-start-chat";
import { ToolChips } from "../agents/tool-chips";

export function NewChat() {
  const api = useApi();
  const workspace = useWorkspace();
  const agents = useQuery({ queryKey: agentKeys.list(workspace.slug), queryFn: () => api("/api/agents", { schema: agentListSchema }) });
  const start = useStartChat();

  return (
    <div className="card flex h-full min-h-0 flex-col overflow-hidden">
      <header className="border-b border-slate-200 px-4 py-3 sm:px-5">
        <h1 className="text-base font-semibold tracking-tight">Start a chat</h1>
        <p className="text-xs text-slate-500">Pick an agent. Its replies stream in, with every tool it uses shown as a step.</p>
      </header>
      <div className="min-h-0 flex-1 overflow-y-auto p-3 sm:p-5">
        {agents.isPending ? (
          <p role="status" className="text-sm text-slate-500">
            Loading agents…
          </p>
        ) : agents.isError ? (
          <p role="alert" className="text-sm text-rose-700">
            {errorMessage(agents.error, "Could not load the agents.")}
          </p>
        ) : agents.data.agents.length === 0 ? (
          <p className="text-sm text-slate-600">This workspace has no agents yet. A manager can add one.</p>
        ) : (
          <ul aria-label="Agents" className="grid gap-3 xl:grid-cols-2">
            {agents.data.agents.map((agent) => {
              const paused = agent.status === "paused";
              const busy = start.isPending && start.variables === agent.id;
              return (
                <li key={agent.id} className="flex flex-col rounded-lg border border-slate-200 p-4">
                  <div className="flex items-center gap-3">
                    <Avatar name={agent.name} color={agent.color} />
                    <div className="min-w-0 flex-1">
                      <div className="truncate text-sm font-medium">{agent.name}</div>
                      <div className="truncate font-mono text-xs text-slate-500">@{agent.handle}</div>
                    </div>
                    {agent.model === OFFLINE_MODEL ? (
                      <span className="rounded bg-amber-100 px-1.5 py-0.5 text-[11px] font-medium text-amber-900">Offline model</span>
                    ) : (
                      <span className="truncate rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[11px] text-slate-600">{agent.model}</span>
                    )}
                  </div>
                  <p className="mt-2 flex-1 text-sm text-slate-600">{agent.description}</p>
                  <div className="mt-3 flex items-center gap-2">
                    <div className="flex min-w-0 flex-1 flex-wrap gap-1">
                      <ToolChips tools={agent.tools} />
                    </div>
                    <button
                      type="button"
                      className="btn-primary shrink-0 py-1 text-xs"
                      disabled={paused || start.isPending}
                      onClick={() => start.mutate(agent.id)}
                    >
                      {paused ? "Paused" : busy ? "Starting…" : "Start chat"}
                      <span className="sr-only">
                        {paused ? " — " : " with "}
                        {agent.name} (@{agent.handle})
                      </span>
                    </button>
                  </div>
                </li>
              );
            })}
          </ul>
        )}
        {start.isError ? (
          <p role="alert" className="mt-4 text-sm text-rose-700">
            {errorMessage(start.error, "Could not start the chat.")}
          </p>
        ) : null}
      </div>
    </div>
  );
}
