import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { isAppError } from "@/lib/errors";
import { requireWorkspacePage } from "@/lib/http/page";
import { getCrewRow } from "@/lib/missions/crews";
import { getServer } from "@/lib/server";
import { can } from "@/lib/access/capabilities";
import { CrewEditor } from "@/components/missions/crew-editor";

export const metadata: Metadata = { title: "Edit crew" };

export default async function EditCrewPage({ params }: { params: Promise<{ workspace: string; crewId: string }> }) {
  const { workspace: slug, crewId } = await params;
  const { workspace } = await requireWorkspacePage(slug);
  if (!can(workspace.role, "crews.manage") || !z.uuid().safeParse(crewId).success) notFound();
  const { db } = await getServer();
  try {
    await getCrewRow(db, workspace.id, crewId);
  } catch (error) {
    if (isAppError(error) && error.kind === "not_found") notFound();
    throw error;
  }
  return <CrewEditor crewId={crewId} />;
}
