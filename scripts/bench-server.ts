// The built server as the HTTP benchmark runs it: started on a free port against a database, stopped, and what its
// requests cost it in CPU.
import net from "node:net";
import { spawn, type ChildProcess } from "node:child_process";
import { usageOf } from "./bench-proc";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export interface Instance {
  origin: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startInstance(port: number, databaseUrl: string, paceMs: number, shared: { authSecret: string; key: string; owner: { email: string; password: string } }): Promise<Instance> {
  const origin = `http://127.0.0.1:${port}`;
  // BENCH_PROFILE_DIR: the server runs under the V8 CPU profiler (one .cpuprofile per process, written when it stops).
  const profile = process.env.BENCH_PROFILE_DIR;
  const command = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`, "node_modules/next/dist/bin/next", "start", "-p", String(port)] : ["scripts/start.mjs"];
  const child = spawn(process.execPath, command, {
    env: {
      ...process.env,
      PORT: String(port),
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      AUTH_SECRET: shared.authSecret,
      AUTH_URL: origin,
      AUTH_TRUST_HOST: "true",
      CLAWDECK_ORIGIN: origin,
      CLAWDECK_ENCRYPTION_KEY: shared.key,
      CLAWDECK_OWNER_EMAIL: shared.owner.email,
      CLAWDECK_OWNER_PASSWORD: shared.owner.password,
      CLAWDECK_OFFLINE_DELAY_MS: String(paceMs),
      CLAWDECK_RUN_START_LIMIT: "0",
      ANTHROPIC_API_KEY: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += String(d)));
  child.stderr!.on("data", (d) => (output += String(d)));
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
  };
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`The server on ${port} exited:\n${output.slice(-2000)}`);
    const ok = await fetch(`${origin}/api/health`).then((r) => r.ok, () => false);
    if (ok) return { origin, child, stop };
    await new Promise((r) => setTimeout(r, 250));
  }
  await stop();
  throw new Error(`The server on ${port} did not answer within 150 s:\n${output.slice(-2000)}`);
}

/**
 * The server's CPU per request for `count` requests to `path`, 20 at a time, each body read to its end (bytes as
 * UTF-8); every request is given `timeoutS` seconds.
 */
export async function requestCost(instance: Instance, cookie: string, path: string, count: number, timeoutS: number): Promise<{ cpuMs: number; bytes: number }> {
  const get = async () => {
    const res = await fetch(`${instance.origin}${path}`, { headers: { cookie, "x-clawdeck-workspace": "demo" }, signal: AbortSignal.timeout(timeoutS * 1000) });
    const body = await res.text();
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${body.slice(0, 200)}`);
    return Buffer.byteLength(body);
  };
  const before = usageOf(instance.child.pid!).cpuMs;
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < count) {
        next += 1;
        const length = await get();
        bytes += length;
      }
    }),
  );
  return { cpuMs: (usageOf(instance.child.pid!).cpuMs - before) / count, bytes: bytes / count };
}

/**
 * What opening a run's stream costs the server, against a signed-in read of the same shape (the session with its
 * membership, one small statement): both measured in turn, three rounds after a round to warm up, the last round's
 * figures kept (the first ones still pay for compiling).
 */
export async function openingCost(instance: Instance, cookie: string, runId: string, count: number, timeoutS: number) {
  const read = "/api/workspace/time-zone";
  const stream = `/api/runs/${runId}/events`;
  let figures = { read: { cpuMs: 0, bytes: 0 }, stream: { cpuMs: 0, bytes: 0 } };
  for (let round = 0; round < 4; round++) {
    await new Promise((r) => setTimeout(r, 500)); // what the pass before left to do is done
    const readCost = await requestCost(instance, cookie, read, count, timeoutS);
    const streamCost = await requestCost(instance, cookie, stream, count, timeoutS);
    figures = { read: readCost, stream: streamCost };
  }
  return figures;
}
