import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { can } from "@/lib/access/capabilities";
import { MissionsHome } from "@/components/missions/missions-home";

export const metadata: Metadata = { title: "Missions" };

export default async function MissionsPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  return <MissionsHome canEdit={can(workspace.role, "crews.manage")} />;
}
