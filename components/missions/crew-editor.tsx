"use client";

import { useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { agentKeys, missionKeys } from "@/lib/client/query-keys";
import { agentListSchema } from "@/lib/agents/agent-schemas";
import { useApi, useWorkspace } from "../providers";
import { ErrorNotice } from "../ui/error-notice";
import { crewOneSchema } from "@/lib/missions/mission-schemas";

const loading = () => <p role="status" className="text-sm text-slate-500">Loading the crew…</p>;

// The canvas (@xyflow/react) loads after the page, while the crew and the agents are fetched.
const CanvasEditor = dynamic(() => import("./crew-canvas").then((m) => m.CanvasEditor), { ssr: false, loading });

/** Edits a crew on a canvas: templates, nodes bound to agents, handoffs drawn between handles. */
export function CrewEditor({ crewId }: { crewId: string | null }) {
  const api = useApi();
  const { slug } = useWorkspace();
  const agents = useQuery({ queryKey: agentKeys.list(slug), queryFn: () => api("/api/agents", { schema: agentListSchema }) });
  const crew = useQuery({
    queryKey: missionKeys.crew(slug, crewId ?? "new"),
    queryFn: () => api(`/api/crews/${crewId}`, { schema: crewOneSchema }),
    enabled: !!crewId,
  });
  if ((crewId && crew.isPending) || agents.isPending) return loading();
  if ((crewId && crew.isError) || agents.isError) return <ErrorNotice error={crew.error ?? agents.error} fallback="Could not load the crew." />;
  return <CanvasEditor crewId={crewId} crew={crew.data?.crew ?? null} agents={agents.data.agents} />;
}
