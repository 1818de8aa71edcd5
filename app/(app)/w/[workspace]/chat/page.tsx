import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { getServer } from "@/lib/server";
import { chatPrefetches } from "@/lib/http/chat-prefetch";
import { prefetchState } from "@/lib/http/prefetch";
import { ChatLayout } from "@/components/chat/chat-layout";
import { NewChat } from "@/components/chat/new-chat";

export const metadata: Metadata = { title: "Chat" };

export default async function ChatPage({ params }: { params: Promise<{ workspace: string }> }) {
  const { user, workspace } = await requireWorkspacePage((await params).workspace);
  const { db } = await getServer();
  return (
    <HydrationBoundary state={await prefetchState(chatPrefetches(db, workspace, user))}>
      <ChatLayout activeSessionId={null}>
        <NewChat />
      </ChatLayout>
    </HydrationBoundary>
  );
}
