"use client";

import { useEffect, useState } from "react";

/** The current time, refreshed every `ms` while `live`: for durations still running. */
export function useNow(live: boolean, ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [live, ms]);
  return now;
}
