"use client";

import { useEffect, useState } from "react";
import { absoluteWhen, relativeWhen } from "@/lib/client/format-time";
import { useTimeZone } from "../providers";

/** Re-renders every `intervalMs`, so relative times stay true on a page left open. */
export function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}

/**
 * A moment, written the one way the interface writes moments: relative when
 * recent, the full moment on hover, both in the workspace's time zone.
 * `upcoming` for a moment that may be ahead (an expiry).
 */
export function Time({ at, className, upcoming }: { at: string | Date; className?: string; upcoming?: boolean }) {
  const now = useNow();
  const timeZone = useTimeZone();
  const iso = typeof at === "string" ? at : at.toISOString();
  return (
    // The server and the browser may disagree by a few seconds; the browser's answer wins.
    <time dateTime={iso} title={absoluteWhen(iso, { timeZone })} className={className} suppressHydrationWarning>
      {relativeWhen(iso, now, { timeZone, upcoming })}
    </time>
  );
}
