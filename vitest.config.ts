import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(import.meta.dirname) };
const integration = (name: string, driver: "pglite" | "postgres") => ({
  resolve: { alias },
  test: {
    name,
    include: ["tests/integration/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    env: { TEST_DRIVER: driver },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks" as const,
    // next-auth imports `next/server` without an extension, which Node's ESM resolver refuses.
    server: { deps: { inline: ["next-auth", "@auth/core"] } },
  },
});

export default defineConfig({
  test: {
    projects: [
      { resolve: { alias }, test: { name: "unit", include: ["tests/unit/**/*.test.ts"], environment: "node" } },
      integration("integration-pglite", "pglite"),
      ...(process.env.TEST_DATABASE_URL ? [integration("integration-postgres", "postgres")] : []),
    ],
  },
});
