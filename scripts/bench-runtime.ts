// Benchmark of the run journal and live delivery: N concurrent chat runs, each streamed by a
// scripted model (M small text deltas at a fixed pace) and read by one live subscriber. Compares,
// interleaved in the same run, the product's path (mode=default: the runtime drives each run
// through the process's group-committing journal writer, subscribers fed from memory after the
// commit) with a naive journal written by this script as the baseline (mode=baseline: no runtime,
// the same deltas at the same pace, text coalesced for 40 ms, one transaction per batch and a
// notification after it, every subscriber reading the rows back), on PostgreSQL when
// BENCH_DATABASE_URL or TEST_DATABASE_URL is set and on PGlite.
//
//   npm run bench:runtime -- --runs 10,30,100 --pglite-runs 30 --deltas 200 --pace-ms 15
//
// Flags (or the environment variable in brackets):
//   --runs LIST       concurrent runs on PostgreSQL            [BENCH_RUNS, 10,30,100]
//   --pglite-runs LIST  concurrent runs on PGlite              [BENCH_PGLITE_RUNS, 30]
//   --deltas M        text deltas per run                      [BENCH_DELTAS, 200]
//   --pace-ms P       pause before each model event, ms        [BENCH_PACE_MS, 15]
//   --delta-chars C   characters per delta (marker + filler)   [BENCH_DELTA_CHARS, 8]
//   --coalesce-ms K   the baseline's coalescing window         [BENCH_COALESCE_MS, 40]
//   --drivers LIST    pglite,postgres                          [BENCH_DRIVERS, both when a URL is set]
//   --timeout-s T     limit for one measured pass              [BENCH_TIMEOUT_S, 120]
// Exits 1 (after a FAIL line) when a subscriber did not receive exactly the text the model produced.
import crypto from "node:crypto";
import os from "node:os";
import { setMaxListeners } from "node:events";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { count, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../lib/db/client";
import { openPgliteTarget, openPostgresTarget, type Target } from "./bench-db";
import { machineCpu } from "./bench-proc";
import { agentRuns, agents, runEvents, users, workspaces } from "../lib/db/schema";
import { createModelResolver, modelConfigFromEnv, type ResolvedModel } from "../lib/models/registry";
import { createScriptedModel, textTurn } from "../lib/models/scripted";
import type { ModelEvent, ModelProvider, ModelRequest } from "../lib/models/types";
import type { EventBus } from "../lib/db/bus";
import { isTerminal, type RunEventInput } from "../lib/journal/run-events";
import { createRuntime, type Runtime } from "../lib/runtime/runtime";
import { createChat } from "../lib/chats/chats";
import { insertRunEvents, notifyRun, runTopic } from "../lib/journal/run-journal-store";
import { journalWriterFor } from "../lib/journal/run-journal-writer";
import { streamRunEvents } from "../lib/runtime/stream";
import { createToolRegistry } from "../lib/tools/registry";
import { bootstrapIfEmpty } from "../lib/workspaces/bootstrap";
import { fixed, percentile, runBenchmark } from "./bench-main";
import { breakdownTable, mainTable, ratioLine, resultLine, type Mode, type PassResult } from "./bench-runtime-report";

// ---------------------------------------------------------------- options

function readOptions() {
  const argv = process.argv.slice(2);
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new Error(`Unexpected argument ${arg}`);
    const eq = arg.indexOf("=");
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith("--")) throw new Error(`${arg} needs a value`);
      flags.set(arg.slice(2), value);
      i += 1;
    }
  }
  const known = ["runs", "pglite-runs", "deltas", "pace-ms", "delta-chars", "coalesce-ms", "drivers", "timeout-s"];
  for (const name of flags.keys()) if (!known.includes(name)) throw new Error(`Unknown flag --${name} (known: ${known.map((k) => `--${k}`).join(", ")})`);

  const raw = (name: string) => flags.get(name) ?? process.env[`BENCH_${name.replace(/-/g, "_").toUpperCase()}`];
  const int = (name: string, fallback: number, min: number, max: number) => {
    const value = raw(name);
    if (value === undefined || value === "") return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}, not ${value}`);
    return n;
  };
  const postgresUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const drivers = (raw("drivers") ?? (postgresUrl ? "pglite,postgres" : "pglite"))
    .split(",")
    .map((d) => d.trim())
    .filter(Boolean);
  for (const d of drivers) if (d !== "pglite" && d !== "postgres") throw new Error(`Unknown driver ${d} (pglite, postgres)`);
  if (drivers.includes("postgres") && !postgresUrl) throw new Error("The postgres driver needs BENCH_DATABASE_URL (or TEST_DATABASE_URL)");
  if (postgresUrl) {
    const host = new URL(postgresUrl).hostname;
    if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host)) throw new Error(`The benchmark only talks to a server on this machine, not ${host}`);
  }
  const list = (name: string, fallback: string) =>
    (raw(name) || fallback).split(",").map((v) => {
      const n = Number(v.trim());
      if (!Number.isInteger(n) || n < 1 || n > 500) throw new Error(`--${name} takes whole numbers from 1 to 500, not ${v}`);
      return n;
    });
  return {
    runs: list("runs", "10,30,100"),
    pgliteRuns: list("pglite-runs", "30"),
    deltas: int("deltas", 200, 1, 20_000),
    paceMs: int("pace-ms", 15, 0, 1000),
    deltaChars: int("delta-chars", 8, 1, 64),
    coalesceMs: int("coalesce-ms", 40, 1, 10_000),
    timeoutS: int("timeout-s", 120, 1, 3600),
    drivers: drivers as ("pglite" | "postgres")[],
    postgresUrl,
  };
}

// ---------------------------------------------------------------- workload

const MODEL_SPEC = "bench:scripted";
const FILLER = "abcdefghijklmnopqrstuvwxyz";
const MARKER = /‹(\d+)›/g;

/** What one run's model says, and when it said each piece. */
interface Plan {
  pieces: string[];
  expected: string;
  /** performance.now() when the provider yielded piece i. */
  yieldedAt: number[];
}

function makePlan(deltas: number, deltaChars: number): Plan {
  const pieces: string[] = [];
  for (let i = 0; i < deltas; i++) {
    const marker = `‹${i}›`;
    const pad = Math.max(0, deltaChars - marker.length);
    const start = i % FILLER.length;
    pieces.push(marker + (FILLER + FILLER + FILLER).slice(start, start + pad));
  }
  return { pieces, expected: pieces.join(""), yieldedAt: [] };
}

/**
 * One provider for every bench run: the user's message names the run, a scripted model plays
 * that run's pieces, and each text delta is timestamped as it is handed to the runtime.
 */
function createBenchProvider(plans: Map<string, Plan>, paceMs: number): ModelProvider {
  return {
    name: "bench",
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      const lastUser = [...request.messages].reverse().find((m) => m.role === "user");
      const first = lastUser?.content.find((b) => b.type === "text");
      const key = first?.type === "text" ? first.text : "";
      const plan = plans.get(key);
      if (!plan) throw new Error(`The bench provider has no script for ${JSON.stringify(key.slice(0, 60))}`);
      const scripted = createScriptedModel([textTurn(plan.pieces, { inputTokens: 50, outputTokens: plan.pieces.length }, paceMs || undefined)]);
      for await (const event of scripted.stream(request)) {
        if (event.type === "text") plan.yieldedAt.push(performance.now());
        yield event;
      }
    },
  };
}

// ---------------------------------------------------------------- drivers

interface Fixture {
  db: Database;
  workspaceId: string;
  userId: string;
  agentId: string;
}

async function prepareFixture(db: Database): Promise<Fixture> {
  const email = "bench@clawdeck.local";
  await bootstrapIfEmpty(db, { ownerEmail: email, ownerPassword: crypto.randomBytes(12).toString("hex"), model: "offline" });
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  const [workspace] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.slug, "demo"));
  if (!user || !workspace) throw new Error("First-start setup did not create the owner and the demo workspace");
  const [agent] = await db
    .insert(agents)
    .values({ workspaceId: workspace.id, handle: "benchbot", name: "Bench bot", model: MODEL_SPEC, tools: [] })
    .returning({ id: agents.id });
  return { db, workspaceId: workspace.id, userId: user.id, agentId: agent!.id };
}

/**
 * The bus as the runtime sees it, with the time of each run notification kept. The runtime
 * publishes right after the journal transaction commits, so this is the commit time of the
 * rows up to `seq`. Subscribers use the bus itself.
 */
function timedBus(inner: EventBus, published: Map<string, [seq: number, at: number][]>): EventBus {
  return {
    publish(topic, message) {
      const { runId, seq } = message;
      if (typeof runId === "string" && typeof seq === "number" && topic === runTopic(runId)) {
        const log = published.get(runId) ?? [];
        log.push([seq, performance.now()]);
        published.set(runId, log);
      }
      return inner.publish(topic, message);
    },
    subscribe: (topic, listener) => inner.subscribe(topic, listener),
    close: () => inner.close(),
  };
}


function buildRuntime(db: Database, bus: EventBus, provider: ModelProvider): Runtime {
  // As lib/server.ts builds it; only the bench agents' model spec is routed to the scripted provider.
  const runtime = createRuntime({
    db,
    bus,
    models: createModelResolver(modelConfigFromEnv({})),
    tools: createToolRegistry(),
    encryptionKey: crypto.randomBytes(32),
    instanceId: `${os.hostname()}:${process.pid}:${crypto.randomBytes(3).toString("hex")}`,
    maxSteps: 8,
    maxTokens: 4096,
    fetchAllow: [],
    coalesceMs: 0,
    heartbeatMs: 10_000,
  });
  const configured = runtime.deps.models;
  runtime.deps.models = (spec): ResolvedModel => (spec === MODEL_SPEC ? { provider, model: "scripted", spec, offline: false } : configured(spec));
  return runtime;
}

interface Received {
  index: number;
  seq: number;
  at: number;
}

interface SubscriberResult {
  text: string;
  delivered: number;
  terminal: string | null;
  seqProblem: string | null;
  received: Received[];
  duplicates: number;
  unknownMarkers: number;
}

async function subscribe(target: Target, runId: string, plan: Plan, signal: AbortSignal): Promise<SubscriberResult> {
  const result: SubscriberResult = { text: "", delivered: 0, terminal: null, seqProblem: null, received: [], duplicates: 0, unknownMarkers: 0 };
  const seen = new Set<number>();
  let scanned = 0;
  let lastSeq = 0;
  for await (const item of streamRunEvents({ db: target.handle.db, bus: target.bus, runId, afterSeq: 0, signal })) {
    if (item.kind !== "event") continue;
    const at = performance.now();
    const event = item.event;
    result.delivered += 1;
    if (event.seq !== lastSeq + 1 && !result.seqProblem) result.seqProblem = `seq ${event.seq} after ${lastSeq}`;
    lastSeq = event.seq;
    if (event.type === "text") {
      result.text += event.payload.delta;
      // Deltas are never split, but scan the whole text anyway so a marker across two rows still counts.
      MARKER.lastIndex = scanned;
      for (let m = MARKER.exec(result.text); m; m = MARKER.exec(result.text)) {
        scanned = MARKER.lastIndex;
        const index = Number(m[1]);
        if (plan.yieldedAt[index] === undefined) result.unknownMarkers += 1;
        else if (seen.has(index)) result.duplicates += 1;
        else {
          seen.add(index);
          result.received.push({ index, seq: event.seq, at });
        }
      }
    }
    if (isTerminal(event.type)) result.terminal = event.type;
  }
  return result;
}

/** When the journal row with `seq` was committed: the first notification covering it. */
function commitTime(log: [number, number][] | undefined, seq: number): number | undefined {
  return log?.find(([last]) => last >= seq)?.[1];
}

async function runPass(
  target: Target,
  fixture: Fixture,
  options: { driver: string; mode: Mode; runs: number; deltas: number; paceMs: number; deltaChars: number; coalesceMs: number; timeoutS: number },
  stop: AbortSignal,
): Promise<PassResult> {
  const mode = options.mode;
  const plans = new Map<string, Plan>();
  const published = new Map<string, [number, number][]>();
  const bus = timedBus(target.bus, published);
  const runtime = mode === "default" ? buildRuntime(fixture.db, bus, createBenchProvider(plans, options.paceMs)) : naiveJournal(fixture, bus, plans, options);
  // The group writer hands committed events to this process's subscribers: that moment is the commit time.
  const writer = journalWriterFor(fixture.db, target.bus);
  const unlisten: (() => void)[] = [];
  const commitLog = (runId: string) =>
    writer.listen(runId, {
      events: (events) => {
        const log = published.get(runId) ?? [];
        log.push([events[events.length - 1]!.seq, performance.now()]);
        published.set(runId, log);
      },
      wake: () => undefined,
    });
  const tag = crypto.randomBytes(4).toString("hex");
  const sessions = [];
  for (let i = 0; i < options.runs; i++) {
    const text = `bench ${tag} ${mode} run ${i}`;
    plans.set(text, makePlan(options.deltas, options.deltaChars));
    sessions.push({ text, session: await createChat(fixture.db, { workspaceId: fixture.workspaceId, userId: fixture.userId, agent: { id: fixture.agentId } }) });
  }

  const timeout = AbortSignal.timeout(options.timeoutS * 1000);
  const signal = AbortSignal.any([stop, timeout]);
  setMaxListeners(0, signal); // one listener per subscriber
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu = process.cpuUsage();
  const machine = machineCpu()?.busyMs;
  const started = performance.now();
  const flushesBefore = mode === "default" ? writer.stats.flushes : 0;
  const subscribers = await Promise.all(
    sessions.map(async ({ text, session }) => {
      const plan = plans.get(text)!;
      const { runId } = await runtime.startChatRun({ workspaceId: fixture.workspaceId, sessionId: session.id, userId: fixture.userId, text });
      if (mode === "default") unlisten.push(commitLog(runId));
      return { runId, plan, done: subscribe(target, runId, plan, signal) };
    }),
  );
  const results = await Promise.all(subscribers.map((s) => s.done));
  if (signal.aborted) runtime.abandonAll();
  await runtime.drain();
  const wallMs = performance.now() - started;
  const flushes = "stats" in runtime ? runtime.stats.flushes : writer.stats.flushes - flushesBefore;
  const load = os.loadavg().map((l) => l.toFixed(2)).join(",");
  for (const off of unlisten) off();
  const cpuUsed = process.cpuUsage(cpu);
  const machineUsed = machine === undefined ? undefined : machineCpu()?.busyMs;
  loop.disable();

  const runIds = subscribers.map((s) => s.runId);
  const [written] = await fixture.db
    .select({ n: count(), bytes: sql<string>`coalesce(sum(octet_length(${runEvents.payload}::text)), 0)::text` })
    .from(runEvents)
    .where(inArray(runEvents.runId, runIds));
  const states = await fixture.db.select({ id: agentRuns.id, state: agentRuns.state, error: agentRuns.error }).from(agentRuns).where(inArray(agentRuns.id, runIds));
  const stateOf = new Map(states.map((s) => [s.id, s]));

  const failures: string[] = [];
  if (timeout.aborted) failures.push(`the pass did not finish within ${options.timeoutS} s`);
  if (stop.aborted) failures.push("interrupted");
  const latencies: number[] = [];
  const toCommit: number[] = [];
  const toSubscriber: number[] = [];
  let spans = 0;
  let lost = 0;
  subscribers.forEach((s, i) => {
    const r = results[i]!;
    const run = `run ${i} (${s.runId})`;
    const state = stateOf.get(s.runId);
    if (r.text !== s.plan.expected) {
      let at = 0;
      while (at < r.text.length && r.text[at] === s.plan.expected[at]) at += 1;
      failures.push(`${run}: subscriber received ${r.text.length} of ${s.plan.expected.length} characters; first difference at ${at}`);
    }
    if (r.terminal !== "run_completed") failures.push(`${run}: subscriber ended with ${r.terminal ?? "no terminal event"}, run state ${state?.state} ${state?.error ?? ""}`.trim());
    if (r.seqProblem) failures.push(`${run}: sequence gap or repeat (${r.seqProblem})`);
    if (r.duplicates > 0) failures.push(`${run}: ${r.duplicates} markers received twice`);
    if (r.unknownMarkers > 0) failures.push(`${run}: ${r.unknownMarkers} markers received before the model yielded them`);
    if (s.plan.yieldedAt.length !== options.deltas) failures.push(`${run}: the model yielded ${s.plan.yieldedAt.length} of ${options.deltas} deltas`);
    spans += (s.plan.yieldedAt[s.plan.yieldedAt.length - 1] ?? 0) - (s.plan.yieldedAt[0] ?? 0);
    lost += options.deltas - r.received.length;
    const log = published.get(s.runId);
    for (const got of r.received) {
      const yielded = s.plan.yieldedAt[got.index]!;
      latencies.push(got.at - yielded);
      const committed = commitTime(log, got.seq);
      if (committed === undefined) continue;
      toCommit.push(committed - yielded);
      toSubscriber.push(got.at - committed);
    }
  });
  return {
    driver: options.driver,
    runs: options.runs,
    deltas: options.deltas,
    mode,
    coalesceMs: options.coalesceMs,
    rows: Number(written?.n ?? 0),
    bytes: Number(written?.bytes ?? 0),
    lost,
    flushes,
    load,
    wallMs,
    delivered: results.reduce((sum, r) => sum + r.delivered, 0),
    latencies,
    toCommit,
    toSubscriber,
    modelSpanMs: spans / subscribers.length,
    loopDelayP99Ms: loop.percentile(99) / 1e6,
    cpuPercent: ((cpuUsed.user + cpuUsed.system) / 1000 / wallMs) * 100,
    machinePercent: machine === undefined || machineUsed === undefined ? Number.NaN : ((machineUsed - machine) / wallMs) * 100,
    failures,
  };
}

/**
 * The baseline: runs written by this script, with no runtime and no model loop. Each run's deltas come at the
 * model's pace, gather for the coalescing window, and are written one batch per transaction through the journal
 * store, with a notification after each commit that names no writer, so every subscriber reads the rows back.
 */
function naiveJournal(fixture: Fixture, bus: EventBus, plans: Map<string, Plan>, options: { paceMs: number; coalesceMs: number }) {
  const { db } = fixture;
  const writers: Promise<void>[] = [];
  const write = async (runId: string, events: RunEventInput[]) => {
    const seq = await db.transaction((tx) => insertRunEvents(tx, runId, null, events));
    await notifyRun(bus, runId, seq);
    stats.flushes += 1;
  };
  const stats = { flushes: 0 };
  const drive = async (runId: string, plan: Plan) => {
    let buffer = "";
    let writing = Promise.resolve();
    let timer: NodeJS.Timeout | null = null;
    const flush = () => {
      timer = null;
      const delta = buffer;
      buffer = "";
      if (delta) writing = writing.then(() => write(runId, [{ type: "text", payload: { delta } }]));
    };
    for (const piece of plan.pieces) {
      if (options.paceMs) await new Promise((resolve) => setTimeout(resolve, options.paceMs));
      plan.yieldedAt.push(performance.now());
      buffer += piece;
      timer ??= setTimeout(flush, options.coalesceMs);
    }
    if (timer) clearTimeout(timer);
    flush();
    await writing;
    await write(runId, [{ type: "run_completed", payload: { replyMessageId: "" } }]);
  };
  return {
    stats,
    async startChatRun(input: { sessionId: string; text: string }) {
      const [run] = await db
        .insert(agentRuns)
        .values({ workspaceId: fixture.workspaceId, agentId: fixture.agentId, sessionId: input.sessionId, userId: fixture.userId, trigger: "chat", model: MODEL_SPEC, state: "running" })
        .returning({ id: agentRuns.id });
      writers.push(drive(run!.id, plans.get(input.text)!));
      return { runId: run!.id };
    },
    abandonAll: () => undefined,
    drain: () => Promise.all(writers).then(() => undefined),
  };
}

// ---------------------------------------------------------------- main

async function main(): Promise<number> {
  const options = readOptions();
  const stop = new AbortController();
  const onSignal = () => stop.abort("interrupted");
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  const plan: { driver: "pglite" | "postgres"; runs: number }[] = [];
  for (const driver of options.drivers) for (const runs of driver === "postgres" ? options.runs : options.pgliteRuns) plan.push({ driver, runs });
  console.log(
    `Runtime journal benchmark: M=${options.deltas} deltas of ${options.deltaChars} characters per run, pace ${options.paceMs} ms; ` +
      `default (group commit, from memory) vs baseline (coalesced ${options.coalesceMs} ms, read back), interleaved; ` +
      `node ${process.version}, ${os.cpus().length} CPUs; passes: ${plan.map((p) => `${p.driver} N=${p.runs}`).join(", ")}`,
  );
  // Other work on the machine (or on the PostgreSQL server) shows up in every figure: say how busy it was.
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");
  console.log(`load average at start: ${load()}`);
  const results: PassResult[] = [];
  const ratios: string[] = [];
  let failed = false;
  for (const { driver, runs } of plan) {
    if (stop.signal.aborted) break;
    // A fresh database per configuration; both modes run on it, baseline first, then default.
    const target = driver === "pglite" ? await openPgliteTarget() : await openPostgresTarget(options.postgresUrl!);
    const pair: PassResult[] = [];
    try {
      const fixture = await prepareFixture(target.handle.db);
      for (const mode of ["baseline", "default"] as const) {
        if (stop.signal.aborted) break;
        const base = { driver, mode, paceMs: options.paceMs, deltaChars: options.deltaChars, coalesceMs: options.coalesceMs, timeoutS: options.timeoutS };
        // Warm-up (not reported): JIT, query plans, connections.
        const warmUp = await runPass(target, fixture, { ...base, runs: Math.min(4, runs), deltas: Math.min(40, options.deltas) }, stop.signal);
        for (const failure of warmUp.failures) {
          failed = true;
          console.log(`FAIL ${driver} ${mode} (warm-up): ${failure}`);
        }
        const result = await runPass(target, fixture, { ...base, runs, deltas: options.deltas }, stop.signal);
        pair.push(result);
        results.push(result);
        console.log(`  ${driver} N=${runs} ${mode}: ${result.rows} rows in ${(result.wallMs / 1000).toFixed(2)} s, p50 ${fixed(percentile(result.latencies, 50), 1)} ms (load ${result.load})`);
        for (const failure of result.failures) {
          failed = true;
          console.log(`FAIL ${driver} ${mode}: ${failure}`);
        }
      }
    } finally {
      await target.dispose();
    }
    const [baseline, current] = [pair.find((r) => r.mode === "baseline"), pair.find((r) => r.mode === "default")];
    if (baseline && current) ratios.push(ratioLine(current, baseline));
  }

  console.log("");
  console.log(mainTable(results));
  console.log("");
  console.log(
    "Where the latency goes (ms; commit = the runtime's notification after the journal transaction; CPU % of one core, " +
      `so ${os.cpus().length * 100} is every core busy):`,
  );
  console.log(breakdownTable(results, options.deltas * options.paceMs));
  console.log("");
  for (const line of ratios) console.log(line);
  console.log(`load average at end: ${load()}`);
  for (const r of results) console.log(resultLine(r, options.paceMs));
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  if (failed) {
    console.log("FAIL: at least one check failed (see the FAIL lines above).");
    return 1;
  }
  return stop.signal.aborted ? 130 : 0;
}

runBenchmark(main);
