"use client";

import { createContext, useContext, useMemo, useState } from "react";
import { pendingMessageSchema as messageSchema } from "@/lib/client/approvals-stream";
import { useEventStream } from "@/lib/client/use-event-stream";

interface LiveApprovals {
  /** Pending approvals in the workspace, or null before the first message. */
  pending: number | null;
  /** Bumped on every change, so views can refetch what they show. */
  version: number;
  /** Why the server ended the live stream, until it reconnects. */
  streamError: string | null;
}

const LiveApprovalsContext = createContext<LiveApprovals>({ pending: null, version: 0, streamError: null });

/** One stream per page: the sidebar badge and the inbox both read it. */
export function LiveApprovalsProvider({ slug, children }: { slug: string; children: React.ReactNode }) {
  const [count, setCount] = useState<{ pending: number | null; version: number }>({ pending: null, version: 0 });
  const stream = useEventStream(slug, slug, {
    url: () => `/api/approvals/stream?workspace=${encodeURIComponent(slug)}`,
    onMessage: (message) => {
      if (message.event !== "approvals") return;
      let json: unknown;
      try {
        json = JSON.parse(message.data);
      } catch {
        return;
      }
      const parsed = messageSchema.safeParse(json);
      if (parsed.success) setCount((c) => ({ pending: parsed.data.pending, version: c.version + 1 }));
    },
  });
  const streamError = stream.status === "reconnecting" || stream.status === "failed" ? (stream.error?.message ?? null) : null;
  const value = useMemo(() => ({ ...count, streamError }), [count, streamError]);
  return <LiveApprovalsContext.Provider value={value}>{children}</LiveApprovalsContext.Provider>;
}

export function useLiveApprovals(): LiveApprovals {
  return useContext(LiveApprovalsContext);
}
