import type { Metadata } from "next";
import { requireWorkspacePage } from "@/lib/http/page";
import { ChatLayout } from "@/components/chat/chat-layout";
import { NewChat } from "@/components/chat/new-chat";

export const metadata: Metadata = { title: "Chat" };

export default async function ChatPage({ params }: { params: Promise<{ workspace: string }> }) {
  await requireWorkspacePage((await params).workspace);
  return (
    <ChatLayout activeSessionId={null}>
      <NewChat />
    </ChatLayout>
  );
}
