import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { isAppError } from "@/lib/errors";
import { requireWorkspacePage } from "@/lib/http/page";
import { getComparison } from "@/lib/missions/compare";
import { getServer } from "@/lib/server";
import { ComparisonView } from "@/components/missions/comparison-view";

export const metadata: Metadata = { title: "Comparison" };

export default async function ComparisonPage({ params }: { params: Promise<{ workspace: string; comparisonId: string }> }) {
  const { workspace: slug, comparisonId } = await params;
  const { workspace, user } = await requireWorkspacePage(slug);
  if (!z.uuid().safeParse(comparisonId).success) notFound();
  const { db } = await getServer();
  try {
    await getComparison(db, workspace.id, comparisonId, { userId: user.id, role: workspace.role });
  } catch (error) {
    if (isAppError(error) && error.kind === "not_found") notFound();
    throw error;
  }
  return <ComparisonView comparisonId={comparisonId} />;
}
