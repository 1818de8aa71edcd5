import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { Suspense } from "react";
import { listAgents } from "@/lib/agents/agents";
import { agentListSchema } from "@/lib/agents/agent-schemas";
import { agentKeys, feedKeys, roomKeys } from "@/lib/client/query-keys";
import { currentFeedSeq, feedForViewer } from "@/lib/feed/feed";
import { feedPageSchema } from "@/lib/feed/feed-schemas";
import { requireWorkspacePage } from "@/lib/http/page";
import { prefetch, prefetchState } from "@/lib/http/prefetch";
import { listRooms } from "@/lib/rooms/rooms";
import { roomListSchema } from "@/lib/rooms/room-schemas";
import { getServer } from "@/lib/server";
import { FeedView } from "@/components/feed/feed-view";

export const metadata: Metadata = { title: "Feed" };

/** The feed's own filters: with none in the address, the newest items are read here too. */
const FILTER_PARAMS = ["agent", "room", "thread", "kind"];
const FIRST_PAGE = 200;

export default async function FeedPage({ params, searchParams }: { params: Promise<{ workspace: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { user, workspace } = await requireWorkspacePage((await params).workspace);
  const query = await searchParams;
  const filtered = FILTER_PARAMS.some((name) => query[name] !== undefined);
  const { db } = await getServer();
  const viewer = { userId: user.id, role: workspace.role };
  // The agents and rooms the feed names its items by, as GET /api/agents and GET /api/rooms (any member) answer, and the
  // newest items this person may see, as GET /api/feed answers them.
  const prefetched = await prefetchState([
    prefetch(agentKeys.list(workspace.slug), agentListSchema, async () => ({ agents: await listAgents(db, workspace.id) })),
    prefetch(roomKeys.list(workspace.slug), roomListSchema, async () => ({ rooms: await listRooms(db, workspace.id) })),
    !filtered &&
      prefetch(feedKeys.page(workspace.slug, "", FIRST_PAGE), feedPageSchema, async () => ({
        items: await feedForViewer(db, workspace.id, viewer, { filter: {}, limit: FIRST_PAGE }),
        seq: await currentFeedSeq(db, workspace.id),
      })),
  ]);
  return (
    <HydrationBoundary state={prefetched}>
      <Suspense>
        <FeedView />
      </Suspense>
    </HydrationBoundary>
  );
}
