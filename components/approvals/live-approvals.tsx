"use client";

import { createContext, useContext, useEffect, useState } from "react";
import { pendingMessageSchema as messageSchema } from "@/lib/client/approvals-stream";
import { STREAM_ERROR_EVENT, streamErrorFromData } from "@/lib/errors";

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
  const [state, setState] = useState<LiveApprovals>({ pending: null, version: 0, streamError: null });
  useEffect(() => {
    const source = new EventSource(`/api/approvals/stream?workspace=${encodeURIComponent(slug)}`);
    source.addEventListener("approvals", (event) => {
      const parsed = messageSchema.safeParse(JSON.parse((event as MessageEvent<string>).data));
      if (parsed.success) setState((s) => ({ pending: parsed.data.pending, version: s.version + 1, streamError: null }));
    });
    source.addEventListener(STREAM_ERROR_EVENT, (event) => {
      const message = streamErrorFromData((event as MessageEvent<string>).data).message;
      setState((s) => ({ ...s, streamError: message }));
    });
    return () => source.close();
  }, [slug]);
  return <LiveApprovalsContext.Provider value={state}>{children}</LiveApprovalsContext.Provider>;
}

export function useLiveApprovals(): LiveApprovals {
  return useContext(LiveApprovalsContext);
}
