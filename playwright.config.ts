import { defineConfig } from "@playwright/test";

/**
 * The browser tests run in `E2E_WORKERS` workers (2 by default), each against a server of its own on its own port
 * and data folder: tests that change a workspace's policy or members never meet another worker's. A worker's server
 * is the first port plus its parallel index (Playwright sets `TEST_PARALLEL_INDEX` in each worker).
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.E2E_WORKERS ?? 2));
const firstPort = Number(process.env.E2E_PORT ?? 3100);
const workerPort = firstPort + Number(process.env.TEST_PARALLEL_INDEX ?? 0);

export default defineConfig({
  testDir: "e2e",
  fullyParallel: false,
  workers: E2E_WORKERS,
  // One more try on CI, where one machine runs the server, the browser and the database at once; a retried test is
  // listed as flaky in the report.
  retries: process.env.CI ? 1 : 0,
  forbidOnly: !!process.env.CI,
  // CI runs the servers, two browsers and the database on one small machine: what takes a second alone can take three.
  timeout: process.env.CI ? 120_000 : 60_000,
  expect: { timeout: process.env.CI ? 20_000 : 10_000 },
  reporter: process.env.CI ? [["list"]] : [["list"], ["html", { open: "never" }]],
  use: {
    baseURL: `http://127.0.0.1:${workerPort}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
  webServer: Array.from({ length: E2E_WORKERS }, (_, i) => ({
    command: "node scripts/e2e-server.mjs",
    env: { E2E_PORT: String(firstPort + i) },
    url: `http://127.0.0.1:${firstPort + i}/api/health`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: "pipe" as const,
    stderr: "pipe" as const,
  })),
});
