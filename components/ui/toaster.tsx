"use client";

import { useTheme } from "next-themes";
import { Toaster as Sonner } from "sonner";

/** Where short confirmations appear ("Saved"); they are announced politely and leave on their own. */
export function Toaster() {
  const { resolvedTheme } = useTheme();
  return <Sonner theme={resolvedTheme === "dark" ? "dark" : "light"} position="bottom-right" closeButton richColors />;
}

export { toast } from "sonner";
