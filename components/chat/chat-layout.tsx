import { SessionList } from "./session-list";

/** Chats on the left, the open one (or the agent picker) on the right, filling the window below the page padding. */
export function ChatLayout({ activeSessionId, children }: { activeSessionId: string | null; children: React.ReactNode }) {
  return (
    <div className="-my-2 flex h-[calc(100vh-3rem)] min-h-[28rem] gap-4">
      <SessionList activeSessionId={activeSessionId} />
      <div className="flex min-w-0 flex-1 flex-col">{children}</div>
    </div>
  );
}
