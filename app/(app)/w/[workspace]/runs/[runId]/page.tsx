import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { isAppError } from "@/lib/errors";
import { requireWorkspacePage } from "@/lib/http/page";
import { getRun } from "@/lib/runtime/runs";
import { getServer } from "@/lib/server";
import { RunView } from "@/components/runs/run-view";

export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ workspace: string; runId: string }> }) {
  const { workspace: slug, runId } = await params;
  const { workspace } = await requireWorkspacePage(slug);
  if (!z.uuid().safeParse(runId).success) notFound();
  const { db } = await getServer();
  try {
    await getRun(db, workspace.id, runId);
  } catch (error) {
    if (isAppError(error) && error.kind === "not_found") notFound();
    throw error;
  }
  return <RunView runId={runId} />;
}
