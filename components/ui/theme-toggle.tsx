"use client";

import { Monitor } from "lucide-react";
import { lazy, Suspense } from "react";
import { useHydrated } from "@/lib/client/use-hydrated";

const ThemeMenu = lazy(() => import("./theme-menu"));

/**
 * The theme button of every page. Its menu (Radix's menu with its keyboard handling) is not needed to show the page,
 * so it loads right after it; until then the same button stands in its place, inert, so nothing moves.
 */
export function ThemeToggle({ className }: { className?: string }) {
  const hydrated = useHydrated();
  const placeholder = (
    <button type="button" disabled aria-label="Theme" className={className}>
      <Monitor aria-hidden className="size-4" />
    </button>
  );
  if (!hydrated) return placeholder;
  return (
    <Suspense fallback={placeholder}>
      <ThemeMenu className={className} />
    </Suspense>
  );
}
