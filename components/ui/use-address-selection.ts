"use client";

import { useEffect, useRef } from "react";
import { useSearchParams } from "next/navigation";

/**
 * Selects, once, the item an address names (`?approval=<id>`): when the list
 * holding it arrives, `select` gets its index and `reveal` its element id to
 * scroll to. A link from elsewhere (the feed) thus opens a list at that item.
 */
export function useSelectFromAddress(param: string, ids: readonly string[] | undefined, select: (index: number) => void) {
  const wanted = useSearchParams().get(param);
  const done = useRef<string | null>(null);
  useEffect(() => {
    if (!wanted || !ids || done.current === wanted) return;
    const index = ids.indexOf(wanted);
    if (index < 0) return;
    done.current = wanted;
    select(index);
    requestAnimationFrame(() => document.querySelector(`[data-item-id="${CSS.escape(wanted)}"]`)?.scrollIntoView({ block: "center" }));
  }, [wanted, ids, select]);
  return wanted;
}
