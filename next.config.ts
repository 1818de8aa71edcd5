import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules at run time.
  // rate-limiter-flexible loads drizzle-orm with a run-time import, which a bundle cannot follow.
  serverExternalPackages: ["@electric-sql/pglite", "rate-limiter-flexible"],
  poweredByHeader: false,
};

export default nextConfig;
