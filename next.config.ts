import type { NextConfig } from "next";
import { apiSecurityHeaders } from "./lib/http/security-headers";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time; rate-limiter-flexible
  // imports drizzle-orm by a computed name, which only Node (not the bundler) can resolve.
  serverExternalPackages: ["@electric-sql/pglite", "rate-limiter-flexible"],
  poweredByHeader: false,
  // The test script type-checks the whole project (tsc) before it builds; a build of its own always does.
  typescript: { ignoreBuildErrors: process.env.CLAWDECK_TYPECHECKED === "1" },
  // forbidden(): a page a role may not open answers 403 and renders the segment's forbidden.tsx.
  experimental: { authInterrupts: true },
  // API responses are data: fixed headers, set without running the proxy (which gives each page its own nonce).
  async headers() {
    return [{ source: "/api/:path*", headers: apiSecurityHeaders() }, { source: "/api", headers: apiSecurityHeaders() }];
  },
};

export default nextConfig;
