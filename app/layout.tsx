import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import { RootProviders } from "@/components/root-providers";
import "./globals.css";

// Every page renders per request: the Content-Security-Policy nonce (set in proxy.ts) is new each time,
// and Next.js can only stamp it on the scripts of a page rendered for that request.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Clawdeck", template: "%s · Clawdeck" },
  description: "The command centre for teams of AI agents",
  applicationName: "Clawdeck",
  manifest: "/manifest.webmanifest",
  icons: {
    icon: [
      { url: "/favicon.ico", sizes: "any" },
      { url: "/icon.svg", type: "image/svg+xml" },
    ],
    apple: "/apple-touch-icon.png",
  },
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#f8fafc" },
    { media: "(prefers-color-scheme: dark)", color: "#020617" },
  ],
};

/** The nonce proxy.ts put in this request's policy, for the one inline script we render ourselves. */
async function requestNonce(): Promise<string | undefined> {
  const policy = (await headers()).get("Content-Security-Policy") ?? "";
  return /'nonce-([^']+)'/.exec(policy)?.[1];
}

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  const nonce = await requestNonce();
  return (
    // next-themes sets the theme class on <html> before React hydrates.
    <html lang="en" suppressHydrationWarning>
      <body className="min-h-screen">
        <a
          href="#main"
          className="sr-only z-[60] rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
        >
          Skip to content
        </a>
        <RootProviders nonce={nonce}>{children}</RootProviders>
      </body>
    </html>
  );
}
