// Benchmark of a run journal's delivery to another instance on the same PostgreSQL database: N runs written by one
// instance's journal writer at a model's pace, each followed by V subscribers on a second instance (its own
// connections and LISTEN), which learns of each flush by its notification. Compares, alternated in the same run, the
// product's path (mode=default: small rows travel in the notification and are handed over as they are) with the
// former one as the baseline (mode=baseline: the second instance reads every announced range, once per run for all
// its subscribers). Both instances live in this process, so the CPU figures are theirs together.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:remote -- --runs 100 --viewers 3
//
// Flags (or the environment variable in brackets):
//   --runs N        runs written at once                      [BENCH_RUNS, 100]
//   --viewers V     subscribers per run on the second instance [BENCH_VIEWERS, 3]
//   --deltas M      text deltas per run                       [BENCH_DELTAS, 100]
//   --pace-ms P     pause between a run's deltas, ms          [BENCH_PACE_MS, 15]
//   --rounds R      baseline/default pairs, alternated        [BENCH_ROUNDS, 2]
// Exits 1 (after a FAIL line) when a subscriber did not receive exactly the text written, in sequence order.
import crypto from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { eq } from "drizzle-orm";
import { openDatabase } from "../lib/db/client";
import { users, workspaces, agents } from "../lib/db/schema";
import { createPostgresBus } from "../lib/db/bus";
import { journalWriterFor } from "../lib/journal/run-journal-writer";
import { createChatRun } from "../lib/runs";
import { createChat } from "../lib/chats/chats";
import { streamRunEvents } from "../lib/runtime/stream";
import { bootstrapIfEmpty } from "../lib/workspaces/bootstrap";
import { openPostgresTarget } from "./bench-db";
import { databaseCpuMs } from "./bench-proc";
import { fixed, percentile, runBenchmark } from "./bench-main";

function readOptions() {
  const flags = new Map<string, string>();
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!;
    if (!name.startsWith("--") || argv[i + 1] === undefined) throw new Error(`Expected --flag value, not ${argv.slice(i).join(" ")}`);
    flags.set(name.slice(2), argv[i + 1]!);
  }
  const known = ["runs", "viewers", "deltas", "pace-ms", "rounds"];
  for (const name of flags.keys()) if (!known.includes(name)) throw new Error(`Unknown flag --${name} (known: ${known.map((k) => `--${k}`).join(", ")})`);
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = flags.get(name) ?? process.env[`BENCH_${name.replace(/-/g, "_").toUpperCase()}`];
    if (raw === undefined || raw === "") return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}, not ${raw}`);
    return n;
  };
  const url = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("Set BENCH_DATABASE_URL to a PostgreSQL server on this machine (two instances share only PostgreSQL).");
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(new URL(url).hostname)) throw new Error("The benchmark only talks to a server on this machine");
  return {
    url,
    runs: int("runs", 100, 1, 1_000),
    viewers: int("viewers", 3, 1, 50),
    deltas: int("deltas", 100, 1, 2_000),
    paceMs: int("pace-ms", 15, 1, 1_000),
    rounds: int("rounds", 2, 1, 10),
  };
}

type Mode = "baseline" | "default";
const OWNER = `bench-remote-${crypto.randomBytes(3).toString("hex")}`;
const piece = (i: number) => `d${i};`;

interface Pass {
  mode: Mode;
  latencies: number[];
  lost: number;
  failures: string[];
  reads: number;
  carried: number;
  cpuMsPerKiloDelta: number;
  databaseCpuMsPerKiloDelta: number;
  load: string;
}

async function main(): Promise<number> {
  const options = readOptions();
  const target = await openPostgresTarget(options.url, "clawdeck_benchremote");
  const database = new URL(target.url!).pathname.slice(1);
  const second = await openDatabase({ driver: "postgres", url: target.url! });
  const secondBus = await createPostgresBus(target.url!);
  const passes: Pass[] = [];
  try {
    const db = target.handle.db;
    const email = "bench@clawdeck.local";
    await bootstrapIfEmpty(db, { ownerEmail: email, ownerPassword: crypto.randomBytes(12).toString("hex"), model: "offline" });
    const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
    const [workspace] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.slug, "demo"));
    const [agent] = await db.insert(agents).values({ workspaceId: workspace!.id, handle: "remotebot", name: "Remote bot", model: "offline", tools: [] }).returning();
    const fixture = { workspaceId: workspace!.id, userId: user!.id, agentId: agent!.id };
    const writer = journalWriterFor(db, target.bus);
    const there = journalWriterFor(second.db, secondBus);
    console.log(
      `Delivery to a second instance: ${options.runs} runs × ${options.deltas} deltas every ${options.paceMs} ms, ${options.viewers} subscribers per run ` +
        `there; baseline (reads every announced range) and default (small rows from the notification), alternated ${options.rounds}×; ` +
        `node ${process.version}, ${os.cpus().length} CPUs`,
    );
    // A short pass of each first (not reported): JIT, query plans, connections.
    for (const mode of ["baseline", "default"] as const) await runPass({ ...options, runs: Math.min(options.runs, 5), deltas: 10 }, mode);
    for (let round = 0; round < options.rounds; round++) for (const mode of ["baseline", "default"] as const) passes.push(await runPass(options, mode));

    async function runPass(settings: typeof options, mode: Mode): Promise<Pass> {
      there.takeCarried = mode === "default";
      const runIds = await Promise.all(
        Array.from({ length: settings.runs }, async () => {
          const session = await createChat(db, { workspaceId: fixture.workspaceId, userId: fixture.userId, agent: { id: fixture.agentId } });
          return (await createChatRun(db, { workspaceId: fixture.workspaceId, sessionId: session.id, userId: fixture.userId, text: "hi", owner: OWNER })).runId;
        }),
      );
      // Each run's first row opens its subscribers (their first read); the measured deltas come after.
      await Promise.all(runIds.map((runId) => writer.append(runId, OWNER, [{ type: "text", payload: { delta: "open;" } }])));
      const writtenAt = runIds.map(() => new Array<number>(settings.deltas));
      // Bounded: a pass that has not ended after two minutes (or twice its writing time) stops its subscribers, and
      // what they lack shows as a failure.
      const limit = AbortSignal.timeout(Math.max(120_000, 2 * settings.deltas * settings.paceMs));
      const stopped = new Promise<void>((resolve) => limit.addEventListener("abort", () => resolve(), { once: true }));
      const opened: Promise<void>[] = [];
      const followers = runIds.flatMap((runId, r) =>
        Array.from({ length: settings.viewers }, () => {
          let open!: () => void;
          opened.push(new Promise<void>((resolve) => (open = resolve)));
          return (async () => {
            const received: [index: number, at: number][] = [];
            let text = "";
            let lastSeq = 0;
            let problem: string | null = null;
            for await (const item of streamRunEvents({ db: second.db, bus: secondBus, runId, afterSeq: 0, heartbeatMs: 600_000, signal: limit })) {
              if (item.kind !== "event") continue;
              const at = performance.now();
              if (item.event.seq !== lastSeq + 1) problem ??= `seq ${item.event.seq} after ${lastSeq}`;
              lastSeq = item.event.seq;
              if (item.event.type !== "text") continue;
              text += item.event.payload.delta;
              if (text === "open;") open();
              for (const m of item.event.payload.delta.matchAll(/d(\d+);/g)) received.push([Number(m[1]), at]);
            }
            return { r, text, received, problem };
          })();
        }),
      );
      await Promise.race([Promise.all(opened), stopped]);
      const before = { cpu: process.cpuUsage(), db: databaseCpuMs(database), reads: there.stats.reads, carried: there.stats.carried };
      await Promise.all(
        runIds.map(async (runId, r) => {
          // Runs start spread over one pace, as a crew's runs do.
          await new Promise((resolve) => setTimeout(resolve, Math.random() * settings.paceMs));
          for (let i = 0; i < settings.deltas; i++) {
            const started = performance.now();
            writtenAt[r]![i] = started;
            void writer.append(runId, OWNER, [{ type: "text", payload: { delta: piece(i) } }]);
            await new Promise((resolve) => setTimeout(resolve, Math.max(0, settings.paceMs - (performance.now() - started))));
          }
          await writer.append(runId, OWNER, [{ type: "run_completed", payload: { replyMessageId: crypto.randomUUID() } }]);
        }),
      );
      const results = await Promise.all(followers);
      const cpu = process.cpuUsage(before.cpu);
      const deltas = settings.runs * settings.deltas;
      const expected = `open;${Array.from({ length: settings.deltas }, (_, i) => piece(i)).join("")}`;
      const pass: Pass = {
        mode,
        latencies: [],
        lost: 0,
        failures: [],
        reads: there.stats.reads - before.reads,
        carried: there.stats.carried - before.carried,
        cpuMsPerKiloDelta: ((cpu.user + cpu.system) / 1000 / deltas) * 1000,
        databaseCpuMsPerKiloDelta: ((databaseCpuMs(database) - before.db) / deltas) * 1000,
        load: os.loadavg().map((l) => l.toFixed(2)).join(","),
      };
      for (const result of results) {
        if (result.text !== expected) {
          pass.lost += 1;
          pass.failures.push(`run ${result.r}: a subscriber received ${result.text.length} characters, not the ${expected.length} written`);
        }
        if (result.problem) pass.failures.push(`run ${result.r}: ${result.problem}`);
        for (const [index, at] of result.received) pass.latencies.push(at - writtenAt[result.r]![index]!);
      }
      return pass;
    }
  } finally {
    await secondBus.close();
    await second.close();
    await target.dispose();
  }

  const header = ["mode", "append → subscriber there p50 ms", "p99", "reads there", "rows carried", "CPU ms / 1,000 deltas", "database CPU ms / 1,000 deltas", "lost"];
  const rows = passes.map((p) => [
    p.mode === "default" ? "default: rows in the notification" : "baseline: read each range",
    fixed(percentile(p.latencies, 50), 1),
    fixed(percentile(p.latencies, 99), 1),
    String(p.reads),
    String(p.carried),
    fixed(p.cpuMsPerKiloDelta, 0),
    fixed(p.databaseCpuMsPerKiloDelta, 0),
    String(p.lost),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const line of [header, ...rows]) console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  "));
  let failed = false;
  for (const p of passes)
    for (const failure of p.failures) {
      failed = true;
      console.log(`FAIL ${p.mode}: ${failure}`);
    }
  for (const p of passes)
    console.log(
      `RESULT bench=remote driver=postgres runs=${options.runs} viewers=${options.viewers} deltas=${options.deltas} pace_ms=${options.paceMs} ` +
        `p50_ms=${fixed(percentile(p.latencies, 50), 1)} p99_ms=${fixed(percentile(p.latencies, 99), 1)} reads=${p.reads} carried=${p.carried} ` +
        `cpu_ms_per_kdelta=${fixed(p.cpuMsPerKiloDelta, 0)} db_cpu_ms_per_kdelta=${fixed(p.databaseCpuMsPerKiloDelta, 0)} lost=${p.lost} load=${p.load} mode=${p.mode}`,
    );
  return failed ? 1 : 0;
}

runBenchmark(main);
