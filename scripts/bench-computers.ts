// Benchmark of agents' computers, on PGlite: what a sandboxed command costs over spawning the same program directly,
// interleaved in the same run (the baseline), at three depths: the bare sandbox (bubblewrap), a command through the
// computer (its files copied in from the database and read back after it), and many agents' commands at once. Then
// the copy of a workspace of many small files, first and unchanged; a request through the egress proxy against the
// same request made directly; the agent's browser, started and warm; and a health probe answered by this process
// (one database round trip) alone and while agents run hostile commands (fork bombs, memory hogs, floods of output,
// commands that never end), with the next command of each checked afterwards.
//
//   npm run bench:computers -- --samples 200 --agents 20 --files 1000
//
// Flags (or the environment variable in brackets):
//   --samples N   commands per measured path                  [BENCH_SAMPLES, 200]
//   --agents A    agents running a command at the same time   [BENCH_AGENTS, 20]
//   --files F     small files in the synced workspace         [BENCH_FILES, 1000]
// Exits 1 (after a FAIL line) when a command failed or the engine cannot run here.
import { execFile, spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { eq, sql } from "drizzle-orm";
import { createBubblewrapEngine } from "../lib/computers/bubblewrap";
import { createComputers } from "../lib/computers/computers";
import { DEFAULT_COMMAND_LIMITS } from "../lib/computers/engine";
import { DEFAULT_FILE_LIMITS, writeFiles } from "../lib/computers/files";
import { materialise } from "../lib/computers/sync";
import { agents, agentRuns, users, workspaces } from "../lib/db/schema";
import { bootstrapIfEmpty } from "../lib/workspaces/bootstrap";
import { openPgliteTarget } from "./bench-db";
import { fixed, percentile, runBenchmark } from "./bench-main";

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const raw = at > 0 ? process.argv[at + 1] : process.env[`BENCH_${name.toUpperCase()}`];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) throw new Error(`--${name} must be a whole number from 1 to 100000, not ${raw}`);
  return n;
}

/** Spawns a program directly and waits for it: the floor a sandboxed command is measured against. */
function spawnDirect(program: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(program, [], { stdio: "ignore" });
    child.once("error", reject);
    child.once("close", () => resolve(performance.now() - started));
  });
}

const line = (label: string, samples: number[], floor?: number[]) =>
  `  ${label.padEnd(44)} p50 ${fixed(percentile(samples, 50), 1).padStart(7)} ms  p99 ${fixed(percentile(samples, 99), 1).padStart(7)} ms` +
  (floor ? `  overhead p50 ${fixed(percentile(samples, 50) - percentile(floor, 50), 1)} ms, p99 ${fixed(percentile(samples, 99) - percentile(floor, 99), 1)} ms` : "");

async function main(): Promise<number> {
  const samples = option("samples", 200);
  const agentCount = option("agents", 20);
  const fileCount = option("files", 1000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "clawdeck-bench-computers-"));
  fs.chmodSync(root, 0o711);
  const engine = createBubblewrapEngine({ root });
  const available = await engine.availability();
  if (!available.ok) {
    console.log(`FAIL: ${available.reason}`);
    return 1;
  }
  const target = await openPgliteTarget();
  const failures: string[] = [];
  try {
    const db = target.handle.db;
    await bootstrapIfEmpty(db, { ownerEmail: "bench@clawdeck.local", ownerPassword: crypto.randomBytes(12).toString("hex"), model: "offline" });
    const [workspace] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.slug, "demo"));
    const [owner] = await db.select({ id: users.id }).from(users);
    const makeAgent = async (i: number) =>
      (await db.insert(agents).values({ workspaceId: workspace!.id, handle: `bench${i}`, name: `Bench ${i}`, model: "offline", tools: ["shell.exec"] }).returning({ id: agents.id }))[0]!.id;
    const agentIds = await Promise.all(Array.from({ length: agentCount }, (_, i) => makeAgent(i)));
    const [run] = await db.insert(agentRuns).values({ workspaceId: workspace!.id, agentId: agentIds[0]!, trigger: "agent_message", model: "offline", state: "running" }).returning({ id: agentRuns.id });
    const computers = createComputers(engine, DEFAULT_FILE_LIMITS, DEFAULT_COMMAND_LIMITS);
    const signal = new AbortController().signal;
    const box = await engine.prepare({ workspaceId: workspace!.id, agentId: agentIds[0]! });
    const command = (agentId: string, text: string) =>
      computers.run(db, { workspaceId: workspace!.id, agentId, runId: run!.id, stepId: crypto.randomUUID(), taint: [], privateTo: null }, { command: text, cwd: "" }, { signal });

    console.log(`Computers benchmark: ${samples} commands per path, ${agentCount} agents at once, ${fileCount} files; node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
    // Warm-up: the page cache, the first sandbox, the first statements.
    for (let i = 0; i < 10; i++) {
      await spawnDirect("/bin/true");
      await engine.exec(box, { command: "true", cwd: "", limits: DEFAULT_COMMAND_LIMITS, signal });
      await command(agentIds[0]!, "true");
    }
    const direct: number[] = [];
    const sandboxed: number[] = [];
    const throughComputer: number[] = [];
    // Interleaved, so that whatever else the machine does falls on all three alike.
    for (let i = 0; i < samples; i++) {
      direct.push(await spawnDirect("/bin/true"));
      let started = performance.now();
      const bare = await engine.exec(box, { command: "true", cwd: "", limits: DEFAULT_COMMAND_LIMITS, signal });
      sandboxed.push(performance.now() - started);
      if (bare.exitCode !== 0) failures.push(`the bare sandbox's true exited ${bare.exitCode}: ${bare.stderr.trim()}`);
      started = performance.now();
      const full = await command(agentIds[0]!, "true");
      throughComputer.push(performance.now() - started);
      if (full.exitCode !== 0) failures.push(`shell.exec true exited ${full.exitCode}: ${full.stderr.trim()}`);
    }
    console.log(line("spawn /bin/true directly (baseline)", direct));
    console.log(line("true in a bare sandbox (bubblewrap)", sandboxed, direct));
    console.log(line("true through the computer (copy in, back)", throughComputer, direct));

    // Every agent runs a command at the same moment.
    const started = performance.now();
    const each = await Promise.all(
      agentIds.map(async (agentId, i) => {
        const at = performance.now();
        const out = await command(agentId, `echo agent ${i} > out.txt && cat out.txt`);
        if (out.exitCode !== 0 || out.stdout !== `agent ${i}\n`) failures.push(`agent ${i}: exit ${out.exitCode}, ${JSON.stringify(out.stdout)} ${out.stderr.trim()}`);
        return performance.now() - at;
      }),
    );
    const concurrentWall = performance.now() - started;
    console.log(line(`${agentCount} agents at once, each command`, each));
    console.log(`  ${agentCount} agents at once, all done in ${fixed(concurrentWall, 0)} ms; errors: ${failures.length}`);

    // A workspace of many small files: stored, copied in for the first time, then copied again unchanged.
    const syncAgent = agentIds[agentIds.length - 1]!;
    const files = Array.from({ length: fileCount }, (_, i) => ({ path: `src/${Math.floor(i / 100)}/file${i}.txt`, content: Buffer.from(`file ${i}\n`) }));
    let at = performance.now();
    await writeFiles(db, { workspaceId: workspace!.id, agentId: syncAgent }, { userId: owner!.id, taint: [], privateTo: null }, files, { ...DEFAULT_FILE_LIMITS, maxAgentFiles: fileCount + 10 });
    const stored = performance.now() - at;
    const syncBox = await engine.prepare({ workspaceId: workspace!.id, agentId: syncAgent });
    at = performance.now();
    await materialise(db, syncBox);
    const firstCopy = performance.now() - at;
    at = performance.now();
    await materialise(db, syncBox);
    const again = performance.now() - at;
    at = performance.now();
    const touched = await command(syncAgent, "wc -l src/*/*.txt | tail -1");
    const commandOverFiles = performance.now() - at;
    if (!touched.stdout.includes(`${fileCount} total`)) failures.push(`the synced workspace holds ${JSON.stringify(touched.stdout.trim())}, not ${fileCount} lines`);
    console.log(`  ${fileCount} small files: stored in ${fixed(stored, 0)} ms, first copy ${fixed(firstCopy, 0)} ms, unchanged copy ${fixed(again, 0)} ms, a command over them ${fixed(commandOverFiles, 0)} ms`);

    // The network: a page fetched with curl through the egress proxy, against the same curl made directly.
    const site = http.createServer((_req, res) => res.end("ok\n"));
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    const allow = [new URL(siteUrl).host];
    const curlDirect: number[] = [];
    const curlProxied: number[] = [];
    const networkSamples = Math.max(5, Math.floor(samples / 10));
    for (let i = 0; i < networkSamples; i++) {
      at = performance.now();
      await new Promise<void>((resolve, reject) => execFile("curl", ["-sS", siteUrl], (error) => (error ? reject(error) : resolve())));
      curlDirect.push(performance.now() - at);
      at = performance.now();
      const out = await computers.run(db, { workspaceId: workspace!.id, agentId: agentIds[1]!, runId: run!.id, stepId: crypto.randomUUID(), taint: [], privateTo: null }, { command: `curl -sS ${siteUrl}`, cwd: "", network: { allow } }, { signal });
      curlProxied.push(performance.now() - at);
      if (out.stdout !== "ok\n") failures.push(`curl through the proxy read ${JSON.stringify(out.stdout)} ${out.stderr.trim()}`);
    }
    console.log(line("curl a page directly (baseline)", curlDirect));
    console.log(line("curl it from a sandbox, through the proxy", curlProxied, curlDirect));

    // The browser: the first page starts Chromium in its sandbox; the next ones reuse it.
    const browse = (n: number) =>
      computers.browsers.act(db, { workspaceId: workspace!.id, agentId: agentIds[2]!, runId: run!.id, stepId: crypto.randomUUID(), taint: [], privateTo: null }, { action: "open", url: `${siteUrl}?page=${n}` }, { allow, signal });
    at = performance.now();
    const cold = await browse(0);
    const browserStart = performance.now() - at;
    if (cold.text !== "ok") failures.push(`the browser read ${JSON.stringify(cold.text)}`);
    const warm: number[] = [];
    for (let i = 1; i <= networkSamples; i++) {
      at = performance.now();
      await browse(i);
      warm.push(performance.now() - at);
    }
    await computers.browsers.closeAll();
    site.close();
    console.log(`  the browser: first page (starting Chromium) ${fixed(browserStart, 0)} ms; then ${line("each page", warm).trim()}`);

    // Health under attack: a probe answered by this process every 20 ms, alone, then while agents attack.
    const health = http.createServer((_req, res) => {
      void db.execute(sql`select 1`).then(
        () => res.end("ok"),
        () => res.writeHead(503).end(),
      );
    });
    await new Promise<void>((resolve) => health.listen(0, "127.0.0.1", resolve));
    const healthUrl = `http://127.0.0.1:${(health.address() as AddressInfo).port}/`;
    const probe = async (until: () => boolean) => {
      const times: number[] = [];
      while (!until()) {
        const began = performance.now();
        await new Promise<void>((resolve) => http.get(healthUrl, (res) => res.resume().once("end", resolve)).once("error", () => resolve()));
        times.push(performance.now() - began);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return times;
    };
    const quietUntil = performance.now() + 3_000;
    const quiet = await probe(() => performance.now() > quietUntil);
    const attacks = [
      "f() { f | f & }; f",
      "python3 -c \"a = []\nwhile True: a.append(' ' * 10_000_000)\"",
      "yes 'a line of output that never ends'",
      "cat /dev/zero > big.bin",
      "sleep 600",
    ];
    const attackers = agentIds.slice(3, 3 + Math.min(10, agentIds.length - 3));
    const attackLimits = { ...DEFAULT_COMMAND_LIMITS, wallMs: 5_000 };
    const hostile = createComputers(engine, DEFAULT_FILE_LIMITS, attackLimits);
    let attacking = true;
    const attack = Promise.all(
      attackers.map((agentId, i) =>
        hostile.run(db, { workspaceId: workspace!.id, agentId, runId: run!.id, stepId: crypto.randomUUID(), taint: [], privateTo: null }, { command: attacks[i % attacks.length]!, cwd: "" }, { signal }).catch((error: unknown) => {
          failures.push(`attack ${i} threw: ${(error as Error).message}`);
        }),
      ),
    ).finally(() => (attacking = false));
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const underAttack = await probe(() => !attacking);
    await attack;
    loop.disable();
    health.close();
    const after = await Promise.all(
      attackers.map(async (agentId, i) => {
        const out = await command(agentId, "echo still here");
        if (out.stdout !== "still here\n") failures.push(`agent ${i}'s next command after its attack said ${JSON.stringify(out.stdout)} ${out.stderr.trim()}`);
      }),
    );
    console.log(line("health probe, quiet (baseline)", quiet));
    console.log(line(`health probe, ${attackers.length} agents attacking`, underAttack, quiet));
    console.log(`  event loop delay during the attack: p99 ${fixed(loop.percentile(99) / 1e6, 1)} ms, max ${fixed(loop.max / 1e6, 1)} ms`);
    console.log(`  after the attack: ${after.length} agents' next commands ran`);

    for (const failure of failures.slice(0, 10)) console.log(`FAIL ${failure}`);
    const overheadP50 = percentile(throughComputer, 50) - percentile(direct, 50);
    const overheadP99 = percentile(throughComputer, 99) - percentile(direct, 99);
    console.log(
      `RESULT bench=computers samples=${samples} direct_p50_ms=${fixed(percentile(direct, 50), 1)} sandbox_p50_ms=${fixed(percentile(sandboxed, 50), 1)} ` +
        `overhead_p50_ms=${fixed(overheadP50, 1)} overhead_p99_ms=${fixed(overheadP99, 1)} agents=${agentCount} concurrent_wall_ms=${fixed(concurrentWall, 0)} ` +
        `errors=${failures.length} files=${fileCount} first_copy_ms=${fixed(firstCopy, 0)} unchanged_copy_ms=${fixed(again, 0)} ` +
        `proxy_overhead_p50_ms=${fixed(percentile(curlProxied, 50) - percentile(curlDirect, 50), 1)} browser_start_ms=${fixed(browserStart, 0)} browser_page_p50_ms=${fixed(percentile(warm, 50), 0)} ` +
        `health_quiet_p99_ms=${fixed(percentile(quiet, 99), 1)} health_attack_p99_ms=${fixed(percentile(underAttack, 99), 1)} load=${os.loadavg()[0]!.toFixed(2)}`,
    );
    return failures.length > 0 ? 1 : 0;
  } finally {
    await target.dispose();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

runBenchmark(main);
