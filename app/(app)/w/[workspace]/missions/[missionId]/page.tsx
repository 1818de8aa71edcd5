import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { isAppError } from "@/lib/errors";
import { requireWorkspacePage } from "@/lib/http/page";
import { getMissionRunRow } from "@/lib/missions/read";
import { getServer } from "@/lib/server";
import { MissionView } from "@/components/missions/mission-view";

export const metadata: Metadata = { title: "Mission" };

export default async function MissionPage({ params }: { params: Promise<{ workspace: string; missionId: string }> }) {
  const { workspace: slug, missionId } = await params;
  const { workspace } = await requireWorkspacePage(slug);
  if (!z.uuid().safeParse(missionId).success) notFound();
  const { db } = await getServer();
  try {
    await getMissionRunRow(db, workspace.id, missionId);
  } catch (error) {
    if (isAppError(error) && error.kind === "not_found") notFound();
    throw error;
  }
  return <MissionView missionId={missionId} />;
}
