import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { getServer } from "@/lib/server";
import { can } from "@/lib/access/capabilities";
import { AgentsList } from "@/components/agents/agents-list";
import { agentChoices } from "@/components/agents/choices";

export const metadata: Metadata = { title: "Agents" };

export default async function AgentsPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  const { models, tools, defaultModel } = agentChoices(await getServer());
  return <AgentsList canEdit={can(workspace.role, "agents.manage")} models={models} tools={tools} defaultModel={defaultModel} />;
}
