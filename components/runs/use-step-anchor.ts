"use client";

import { useEffect, useRef } from "react";

/**
 * Makes `#step-<id>` links work on pages whose steps render after their data
 * loads: once the step is on the page, scroll to it and mark it
 * (`data-anchored`) so the page can highlight it. `stepIds` lists the steps
 * rendered so far; each hash is scrolled to once, also for steps that appear
 * later in a live run.
 */
export function useStepAnchor(stepIds: string[]) {
  const done = useRef<string | null>(null);
  const key = stepIds.join(",");
  useEffect(() => {
    const go = (force: boolean) => {
      const hash = decodeURIComponent(window.location.hash.slice(1));
      if (!hash.startsWith("step-") || (!force && done.current === hash)) return;
      const element = document.getElementById(hash);
      if (!element) return;
      done.current = hash;
      for (const marked of document.querySelectorAll("[data-anchored]")) marked.removeAttribute("data-anchored");
      element.setAttribute("data-anchored", "");
      element.scrollIntoView({ block: "center" });
    };
    go(false);
    const onHash = () => go(true);
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [key]);
}

/** Tailwind classes for a container whose anchored step should stand out. */
export const anchoredStepClasses =
  "[&_[data-anchored]]:scroll-mt-24 [&_[data-anchored]]:ring-2 [&_[data-anchored]]:ring-indigo-400 [&_[data-anchored]]:ring-offset-2";
