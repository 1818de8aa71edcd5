import type { Metadata } from "next";
import { and, eq } from "drizzle-orm";
import { notFound } from "next/navigation";
import { z } from "zod";
import { agents } from "@/lib/db/schema";
import { requireWorkspacePage } from "@/lib/http/page";
import { getServer } from "@/lib/server";
import { can } from "@/lib/access/capabilities";
import { AgentDetailView } from "@/components/agents/agent-detail";
import { agentChoices } from "@/components/agents/choices";

export const metadata: Metadata = { title: "Agent" };

export default async function AgentPage({ params }: { params: Promise<{ workspace: string; agentId: string }> }) {
  const { workspace: slug, agentId } = await params;
  const { workspace } = await requireWorkspacePage(slug);
  if (!z.uuid().safeParse(agentId).success) notFound();
  const server = await getServer();
  const [agent] = await server.db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.workspaceId, workspace.id)));
  if (!agent) notFound();
  const { models, tools } = agentChoices(server);
  return <AgentDetailView agentId={agentId} canEdit={can(workspace.role, "agents.manage")} models={models} tools={tools} />;
}
