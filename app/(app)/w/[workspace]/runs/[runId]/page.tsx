import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { getReadableRun } from "@/lib/access/reads";
import { isAppError } from "@/lib/errors";
import { requireWorkspacePage } from "@/lib/http/page";
import { getServer } from "@/lib/server";
import { RunView } from "@/components/runs/run-view";

export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ workspace: string; runId: string }> }) {
  const { workspace: slug, runId } = await params;
  const { user, workspace } = await requireWorkspacePage(slug);
  if (!z.uuid().safeParse(runId).success) notFound();
  const { db } = await getServer();
  try {
    await getReadableRun(db, workspace.id, runId, { userId: user.id, role: workspace.role });
  } catch (error) {
    if (isAppError(error) && error.kind === "not_found") notFound();
    throw error;
  }
  return <RunView runId={runId} />;
}
