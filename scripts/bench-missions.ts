// Benchmark of the mission scheduler: a lead-and-workers mission (1 lead, W workers, 1 merge) on a
// scripted model whose every turn streams P pieces at a fixed pace. For each pass it compares the
// mission's wall time with the critical path of its own node runs (lead + slowest worker + merge,
// each from its run's start to its end, read back from the database in the same pass), and counts
// database transactions committed per node. On PGlite, and on PostgreSQL when BENCH_DATABASE_URL or
// TEST_DATABASE_URL names a local server.
//
//   npm run bench:missions -- --workers 10 --passes 3 --pieces 20 --pace-ms 10
import crypto from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { eq, sql } from "drizzle-orm";
import { rowsOf, type Database } from "../lib/db/client";
import { agentRuns, agents, missionRuns, missions, users, workspaces } from "../lib/db/schema";
import { missionTopic } from "../lib/missions/journal";
import { createMissionScheduler } from "../lib/missions/scheduler";
import { crewTemplate } from "../lib/missions/topology";
import { createModelResolver, modelConfigFromEnv, type ResolvedModel } from "../lib/models/registry";
import { createScriptedModel, textTurn } from "../lib/models/scripted";
import type { ModelProvider } from "../lib/models/types";
import { createRuntime } from "../lib/runtime/runtime";
import { createToolRegistry } from "../lib/tools/registry";
import { bootstrapIfEmpty } from "../lib/workspaces/bootstrap";
import { openPgliteTarget, openPostgresTarget, type Target } from "./bench-db";
import { percentile } from "./bench-main";

function option(name: string, fallback: number, min: number, max: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const raw = i >= 0 ? process.argv[i + 1] : process.env[`BENCH_${name.replace(/-/g, "_").toUpperCase()}`];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}, not ${raw}`);
  return n;
}

const options = {
  workers: option("workers", 10, 1, 22),
  passes: option("passes", 3, 1, 20),
  pieces: option("pieces", 20, 1, 1000),
  paceMs: option("pace-ms", 10, 0, 1000),
};
const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
if (postgresUrl && !["127.0.0.1", "localhost", "::1", "[::1]"].includes(new URL(postgresUrl).hostname)) {
  throw new Error("The benchmark only talks to a PostgreSQL server on this machine");
}
const MODEL_SPEC = "bench:scripted";

/** Every node's turn streams the same pieces at the same pace. */
function provider(): ModelProvider {
  const pieces = Array.from({ length: options.pieces }, (_, i) => `piece ${i} `);
  return {
    name: "bench",
    stream: (request) => createScriptedModel([textTurn(pieces, { inputTokens: 100, outputTokens: options.pieces }, options.paceMs || undefined)]).stream(request),
  };
}

async function committed(db: Database): Promise<number> {
  const [row] = rowsOf<{ n: string | number }>(await db.execute(sql`select xact_commit as n from pg_stat_database where datname = current_database()`));
  return Number(row?.n ?? 0);
}

interface Pass {
  wallMs: number;
  criticalMs: number;
  txPerNode: number;
}

async function runDriver(driver: "pglite" | "postgres", target: Target): Promise<Pass[]> {
  const db = target.handle.db;
  await bootstrapIfEmpty(db, { ownerEmail: "bench@clawdeck.local", ownerPassword: crypto.randomBytes(12).toString("hex"), model: "offline" });
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, "bench@clawdeck.local"));
  const [ws] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.slug, "demo"));
  const shape = crewTemplate("lead-and-workers", options.workers);
  const made = await db
    .insert(agents)
    .values(shape.nodes.map((n, i) => ({ workspaceId: ws!.id, handle: `bench${i}`, name: `Bench ${i}`, model: MODEL_SPEC, tools: [] })))
    .returning({ id: agents.id });
  const [crew] = await db
    .insert(missions)
    .values({
      workspaceId: ws!.id,
      name: "bench",
      topology: { nodes: shape.nodes.map((n, i) => ({ ...n, agentId: made[i]!.id })), edges: shape.edges, concurrency: shape.nodes.length },
    })
    .returning({ id: missions.id });
  const runtime = createRuntime({
    db,
    bus: target.bus,
    models: createModelResolver(modelConfigFromEnv({})),
    tools: createToolRegistry(),
    encryptionKey: crypto.randomBytes(32),
    instanceId: `${os.hostname()}:${process.pid}:bench`,
    maxSteps: 4,
    maxTokens: 4096,
    fetchAllow: [],
    coalesceMs: 40,
    heartbeatMs: 10_000,
  });
  const configured = runtime.deps.models;
  const model = provider();
  runtime.deps.models = (spec): ResolvedModel => (spec === MODEL_SPEC ? { provider: model, model: "scripted", spec, offline: false } : configured(spec));
  const scheduler = createMissionScheduler(runtime);
  const passes: Pass[] = [];
  for (let p = 0; p < options.passes; p++) {
    const before = await committed(db);
    const started = performance.now();
    const { missionId } = await scheduler.start({ workspaceId: ws!.id, crewId: crew!.id, goal: `pass ${p}`, userId: user!.id });
    // Woken by the mission's own journal notifications, not by polling: each read is counted and left out below.
    let reads = 0;
    await new Promise<void>((resolve, reject) => {
      let checking = false;
      const check = () => {
        if (checking) return;
        checking = true;
        reads += 1;
        void db
          .execute(sql`select state from mission_runs where id = ${missionId}`)
          .then((result) => {
            checking = false;
            const state = rowsOf<{ state: string }>(result)[0]?.state;
            if (state === "running") return;
            unsubscribe();
            clearInterval(timer);
            if (state === "succeeded") resolve();
            else reject(new Error(`The ${driver} mission ended ${state}`));
          }, reject);
      };
      const unsubscribe = target.bus.subscribe(missionTopic(missionId), check);
      const timer = setInterval(check, 1000);
      check();
    });
    const wallMs = performance.now() - started;
    await runtime.drain();
    await scheduler.drain();
    const runs = await db.select({ node: agentRuns.missionNodeId, createdAt: agentRuns.createdAt, startedAt: agentRuns.startedAt, finishedAt: agentRuns.finishedAt }).from(agentRuns).where(eq(agentRuns.missionRunId, missionId));
    const [mission] = await db.select({ startedAt: missionRuns.startedAt, finishedAt: missionRuns.finishedAt }).from(missionRuns).where(eq(missionRuns.id, missionId));
    // Where the time outside the node runs goes: the scheduler's own steps between them.
    const ms = (d: Date | null) => d!.getTime();
    const of = (node: string) => runs.find((x) => x.node === node)!;
    const workerRuns = runs.filter((x) => x.node!.startsWith("worker"));
    const gaps = {
      start: ms(of("lead").createdAt) - ms(mission!.startedAt),
      fanOut: Math.min(...workerRuns.map((w) => ms(w.createdAt))) - ms(of("lead").finishedAt),
      join: ms(of("merge").createdAt) - Math.max(...workerRuns.map((w) => ms(w.finishedAt))),
      end: ms(mission!.finishedAt) - ms(of("merge").finishedAt),
      // From a turn's run being created to its driver starting it, on the critical path (lead, slowest worker, merge).
      claim: 0,
    };
    const span = (node: string) => {
      const r = runs.find((x) => x.node === node)!;
      return r.finishedAt!.getTime() - r.startedAt!.getTime();
    };
    const workers = shape.nodes.filter((n) => n.id.startsWith("worker")).map((n) => span(n.id));
    const criticalMs = span("lead") + Math.max(...workers) + span("merge");
    const slowest = workerRuns.reduce((a, b) => (ms(b.finishedAt) - ms(b.startedAt) > ms(a.finishedAt) - ms(a.startedAt) ? b : a));
    gaps.claim = [of("lead"), slowest, of("merge")].reduce((sum, r) => sum + ms(r.startedAt) - ms(r.createdAt), 0);
    // Less this loop's own reads (and the read of the counter), which commit too but are not the scheduler's.
    const txPerNode = (await committed(db)) - before - reads - 1;
    passes.push({ wallMs, criticalMs, txPerNode: txPerNode / shape.nodes.length });
    console.log(
      `${driver.padEnd(8)} pass ${p + 1}: wall ${wallMs.toFixed(0)} ms, critical path ${criticalMs.toFixed(0)} ms, ratio ${(wallMs / criticalMs).toFixed(3)}×, ` +
        `${(txPerNode / shape.nodes.length).toFixed(1)} transactions per node; between runs: start ${gaps.start} ms, fan-out ${gaps.fanOut} ms, join ${gaps.join} ms, end ${gaps.end} ms, runs created to started ${gaps.claim} ms`,
    );
  }
  return passes;
}

const median = (xs: number[]) => percentile(xs, 50);

async function main() {
  const drivers: ("pglite" | "postgres")[] = postgresUrl ? ["pglite", "postgres"] : ["pglite"];
  console.log(`bench:missions — lead + ${options.workers} workers + merge (${options.workers + 2} nodes), ${options.pieces} pieces every ${options.paceMs} ms per turn, ${options.passes} passes`);
  const result: string[] = [];
  for (const driver of drivers) {
    const target = driver === "pglite" ? await openPgliteTarget() : await openPostgresTarget(postgresUrl!, "clawdeck_benchms");
    try {
      const passes = await runDriver(driver, target);
      const ratio = median(passes.map((p) => p.wallMs / p.criticalMs));
      const tx = median(passes.map((p) => p.txPerNode));
      console.log(`${driver.padEnd(8)} median: ratio ${ratio.toFixed(3)}×, ${tx.toFixed(1)} transactions per node`);
      result.push(`${driver}_ratio=${ratio.toFixed(3)}`, `${driver}_tx_per_node=${tx.toFixed(1)}`);
    } finally {
      await target.dispose();
    }
  }
  console.log(`RESULT bench=missions mode=default nodes=${options.workers + 2} pieces=${options.pieces} pace_ms=${options.paceMs} passes=${options.passes} ${result.join(" ")} load=${os.loadavg().map((l) => l.toFixed(2)).join(",")}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
