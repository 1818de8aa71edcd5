import { cn } from "../ui/cn";
import { SessionList } from "./session-list";

/**
 * Chats on the left, the open one (or the agent picker) on the right, filling the window below the page padding.
 * On a phone an open chat takes the whole screen; the picker page lists the person's chats above the agents (below
 * them while there are none).
 */
export function ChatLayout({ activeSessionId, withList = true, children }: { activeSessionId: string | null; withList?: boolean; children: React.ReactNode }) {
  return (
    <div
      className={cn(
        "flex gap-4 lg:-my-2 lg:h-[calc(100vh-3rem)] lg:min-h-[28rem] lg:flex-row",
        activeSessionId ? "h-[calc(100dvh-6rem)] min-h-[24rem]" : "flex-col",
      )}
    >
      {withList ? <SessionList activeSessionId={activeSessionId} /> : null}
      <div className="flex min-w-0 flex-1 flex-col">{children}</div>
    </div>
  );
}
