import type { Metadata } from "next";
import { Suspense } from "react";
import { requireWorkspacePage } from "@/lib/http/page";
import { FeedView } from "@/components/feed/feed-view";

export const metadata: Metadata = { title: "Feed" };

export default async function FeedPage({ params }: { params: Promise<{ workspace: string }> }) {
  await requireWorkspacePage((await params).workspace);
  return (
    <Suspense>
      <FeedView />
    </Suspense>
  );
}
