import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { hasRole } from "@/lib/workspaces/roles";
import { CrewEditor } from "@/components/missions/crew-editor";

export const metadata: Metadata = { title: "New crew" };

export default async function NewCrewPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!hasRole(workspace.role, "manager")) notFound();
  return <CrewEditor crewId={null} />;
}
