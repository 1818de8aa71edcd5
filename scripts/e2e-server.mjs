// Starts the app for the browser tests on a fresh, empty data folder with a known owner.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const port = process.env.E2E_PORT ?? "3100";
// One data folder per server: each worker of the browser tests has a server of its own.
const dataDir = path.resolve(`.test-data/e2e-${port}`);
fs.rmSync(dataDir, { recursive: true, force: true });
const server = spawn(process.execPath, ["scripts/start.mjs"], {
  stdio: "inherit",
  env: {
    ...process.env,
    PORT: port,
    CLAWDECK_DATA_DIR: dataDir,
    CLAWDECK_OWNER_EMAIL: "owner@e2e.test",
    CLAWDECK_OWNER_PASSWORD: "owner-e2e-password",
    DATABASE_URL: "",
    // The browser tests fetch the app's own sign-in page as "the web".
    CLAWDECK_FETCH_ALLOW: `127.0.0.1:${port}`,
    // Slow the offline model's stream so a test can reload the page in the middle of its longest reply (about 5 s)
    // even on a busy machine.
    CLAWDECK_OFFLINE_DELAY_MS: "100",
  },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
