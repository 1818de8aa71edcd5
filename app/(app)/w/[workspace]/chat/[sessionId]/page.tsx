import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { ChatLayout } from "@/components/chat/chat-layout";
import { Conversation } from "@/components/chat/conversation";

export const metadata: Metadata = { title: "Chat" };

export default async function ChatSessionPage({ params }: { params: Promise<{ workspace: string; sessionId: string }> }) {
  const { workspace, sessionId } = await params;
  const { user } = await requireWorkspacePage(workspace);
  return (
    <ChatLayout activeSessionId={sessionId}>
      <Conversation key={sessionId} sessionId={sessionId} currentUserId={user.id} />
    </ChatLayout>
  );
}
