"use client";

import { ThemeProvider } from "next-themes";
import { Toaster } from "./ui/toaster";
import { TooltipProvider } from "./ui/tooltip";

/**
 * What every page shares, signed in or not: the theme (a class on <html>,
 * following the device unless the user picked one), tooltips and toasts.
 * The theme's inline script runs before paint and must carry this
 * response's CSP nonce, or the browser refuses it.
 */
export function RootProviders({ nonce, children }: { nonce: string | undefined; children: React.ReactNode }) {
  return (
    <ThemeProvider attribute="class" defaultTheme="system" enableSystem disableTransitionOnChange nonce={nonce}>
      <TooltipProvider delayDuration={300}>
        {children}
        <Toaster />
      </TooltipProvider>
    </ThemeProvider>
  );
}
