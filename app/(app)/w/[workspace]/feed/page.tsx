import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { Suspense } from "react";
import { listAgents } from "@/lib/agents/agents";
import { agentListSchema } from "@/lib/agents/agent-schemas";
import { agentKeys, roomKeys } from "@/lib/client/query-keys";
import { requireWorkspacePage } from "@/lib/http/page";
import { prefetch, prefetchState } from "@/lib/http/prefetch";
import { listRooms } from "@/lib/rooms/rooms";
import { roomListSchema } from "@/lib/rooms/room-schemas";
import { getServer } from "@/lib/server";
import { FeedView } from "@/components/feed/feed-view";

export const metadata: Metadata = { title: "Feed" };

export default async function FeedPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { workspace } = await requireWorkspacePage((await params).workspace);
  const { db } = await getServer();
  // The agents and rooms the feed names its items by, as GET /api/agents and GET /api/rooms (any member) answer.
  const prefetched = await prefetchState([
    prefetch(agentKeys.list(workspace.slug), agentListSchema, async () => ({ agents: await listAgents(db, workspace.id) })),
    prefetch(roomKeys.list(workspace.slug), roomListSchema, async () => ({ rooms: await listRooms(db, workspace.id) })),
  ]);
  return (
    <HydrationBoundary state={prefetched}>
      <Suspense>
        <FeedView />
      </Suspense>
    </HydrationBoundary>
  );
}
