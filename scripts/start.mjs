// Starts the production server, building first when there is no build of the current sources.
import { spawnSync, spawn } from "node:child_process";
import fs from "node:fs";

const nextBin = "node_modules/next/dist/bin/next";
if (!fs.existsSync(nextBin)) {
  console.error("Dependencies are missing: run `npm install` first.");
  process.exit(1);
}
// A self-hosted tool sends nothing home: Next.js's anonymous telemetry is off unless the operator turns it on.
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: process.env.NEXT_TELEMETRY_DISABLED ?? "1" };
if (!fs.existsSync(".next/BUILD_ID")) {
  console.log("No production build found: building once (one to three minutes; Next.js prints its steps below)…");
  const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: "inherit", env });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const port = process.env.PORT ?? "3000";
// Idle connections are kept for 65 s, longer than the usual proxy's 60: a client (or a proxy) that sends on a
// connection the server has just closed gets a reset instead of an answer, which Node's default of 5 s makes common.
const keepAlive = ["--keepAliveTimeout", "65000"];
const server = spawn(process.execPath, [nextBin, "start", "-p", port, ...keepAlive], { stdio: "inherit", env: { ...env, NODE_ENV: "production" } });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code) => process.exit(code ?? 0));
