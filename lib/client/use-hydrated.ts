"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * False in the server's HTML and until React has taken over the page in the browser, true after. Controls that only
 * work once React listens (a filter that rewrites the address, a menu whose choice is stored in the browser) use it to
 * stay disabled, or neutral, until then, so a choice made in the first moments is never silently dropped.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
