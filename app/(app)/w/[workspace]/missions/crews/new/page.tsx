import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { CrewEditor } from "@/components/missions/crew-editor";

export const metadata: Metadata = { title: "New crew" };

export default async function NewCrewPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  if (!can(workspace.role, "crews.manage")) notFound();
  return <CrewEditor crewId={null} />;
}
