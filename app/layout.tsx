import type { Metadata } from "next";
import "./globals.css";

// Every page renders per request: the Content-Security-Policy nonce (set in proxy.ts) is new each time,
// and Next.js can only stamp it on the scripts of a page rendered for that request.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Clawdeck", template: "%s · Clawdeck" },
  description: "The command centre for teams of AI agents",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">{children}</body>
    </html>
  );
}
