import { HydrationBoundary } from "@tanstack/react-query";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { isAppError } from "@/lib/errors";
import { requireWorkspacePage } from "@/lib/http/page";
import { chatPrefetches } from "@/lib/http/chat-prefetch";
import { prefetchState } from "@/lib/http/prefetch";
import { getChat } from "@/lib/chats/chats";
import { getServer } from "@/lib/server";
import { ChatLayout } from "@/components/chat/chat-layout";
import { Conversation } from "@/components/chat/conversation";

export const metadata: Metadata = { title: "Chat" };

export default async function ChatSessionPage({ params }: { params: Promise<{ workspace: string; sessionId: string }> }) {
  const { workspace: slug, sessionId } = await params;
  const { user, workspace } = await requireWorkspacePage(slug);
  if (!z.uuid().safeParse(sessionId).success) notFound();
  const { db } = await getServer();
  let chat;
  try {
    // A chat the viewer may not read answers "not found", the same as one that does not exist.
    chat = await getChat(db, workspace.id, sessionId, { userId: user.id, role: workspace.role });
  } catch (error) {
    if (isAppError(error) && error.kind === "not_found") notFound();
    throw error;
  }
  const conversation = <Conversation key={sessionId} sessionId={sessionId} currentUserId={user.id} />;
  return (
    <HydrationBoundary state={await prefetchState(chatPrefetches(db, workspace, user, sessionId))}>
      {chat.userId === user.id ? (
        <ChatLayout activeSessionId={sessionId}>{conversation}</ChatLayout>
      ) : (
        // Someone else's chat, opened from a request or the feed: the chat alone, not the viewer's own list beside it.
        <ChatLayout activeSessionId={sessionId} withList={false}>
          {conversation}
        </ChatLayout>
      )}
    </HydrationBoundary>
  );
}
