import type { AgentSummary } from "@/lib/agents/agents";
import { Avatar } from "../ui/avatar";
import { ToolChips } from "./tool-chips";

export function AgentCard({ agent }: { agent: AgentSummary }) {
  return (
    <article className="card h-full p-4" aria-label={`Agent ${agent.handle}`}>
      <div className="flex items-center gap-3">
        <Avatar name={agent.name} color={agent.color} size="lg" />
        <div className="min-w-0">
          <div className="truncate font-medium">{agent.name}</div>
          <div className="truncate font-mono text-xs text-slate-500">@{agent.handle}</div>
        </div>
        {agent.status === "paused" ? (
          <span className="ml-auto rounded bg-amber-100 px-2 py-0.5 text-xs text-amber-800">Paused</span>
        ) : null}
      </div>
      <p className="mt-3 text-sm text-slate-600">{agent.description}</p>
      <dl className="mt-3 space-y-1 text-xs text-slate-500">
        <div className="flex gap-2">
          <dt className="w-12 shrink-0">Model</dt>
          <dd className="font-mono">{agent.model === "offline" ? "offline model (no network)" : agent.model}</dd>
        </div>
        <div className="flex gap-2">
          <dt className="w-12 shrink-0">Tools</dt>
          <dd className="flex flex-wrap gap-1">
            <ToolChips tools={agent.tools} />
          </dd>
        </div>
      </dl>
    </article>
  );
}
