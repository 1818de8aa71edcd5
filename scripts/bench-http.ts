// End-to-end benchmark through HTTP: starts the built server (`npm start`) on a throwaway PostgreSQL
// database, signs in, starts N chats at once with the offline model at a fixed pace, follows every
// run on its message's answer (as the chat page does; the baseline: an EventSource client on its
// events route) plus extra EventSource viewers, and prints delta → client latency, time to
// first text, how long each stream took against one chat alone (measured first, same run), and the
// server's RSS and CPU. With --instances 2 a second server on the same database serves the extra
// viewers (PostgreSQL NOTIFY path). Feed viewers follow the workspace's live feed meanwhile (item →
// viewer latency). Only localhost traffic; every loop is bounded; it stops by itself.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:http -- --chats 60 --viewers 300
//
// Flags (or the environment variable in brackets):
//   --chats N         chats started in the same second          [BENCH_CHATS, 60]
//   --viewers V       extra viewers, 10 per run on V/10 runs    [BENCH_VIEWERS, 100]
//   --instances I     1, or 2 (extra viewers on the second)     [BENCH_INSTANCES, 1]
//   --feed-viewers F  clients on the live feed, same instance   [BENCH_FEED_VIEWERS, 20]
//                     as the extra viewers
//   --pace-ms P       the offline model's pause per piece       [BENCH_PACE_MS, 15]
//   --port P          the first server's port                   [BENCH_PORT, 3110]
//   --timeout-s T     limit for the measured pass               [BENCH_TIMEOUT_S, 120]
//   --openings O      last, the server CPU of O requests opening  [BENCH_OPENINGS, 400]
//                     an ended run's stream, against O signed-in
//                     reads of one small row (0: skip)
//   --notes N         notes about the launch plan the agent is    [BENCH_NOTES, 0]
//                     told to remember first (0 to 5): its answer
//                     quotes them, each about 450 characters more
//                     (with 5, about 2,400 characters: 4 s at 15 ms)
//   --rounds R        crowd passes of each kind, alternated:      [BENCH_ROUNDS, 1]
//                     messages answered with their reply's stream
//                     (the page's way) and, the baseline, with
//                     the run's id and then a stream request
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import { setMaxListeners } from "node:events";
import { monitorEventLoopDelay } from "node:perf_hooks";
import postgres from "postgres";
import { api, follow, followFeed, OWNER, sendAndFollow, signIn } from "./bench-http-clients";
import { databaseCpuMs, machineCpu, usageOf } from "./bench-proc";
import { freePort, openingCost, startInstance, type Instance } from "./bench-server";
import { fixed, percentile, runBenchmark } from "./bench-main";

function readOptions() {
  const argv = process.argv.slice(2);
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!;
    if (!name.startsWith("--") || argv[i + 1] === undefined) throw new Error(`Flags come as --name value, not ${name}`);
    flags.set(name.slice(2), argv[i + 1]!);
  }
  const known = ["chats", "viewers", "instances", "feed-viewers", "pace-ms", "port", "timeout-s", "openings", "notes", "rounds"];
  for (const name of flags.keys()) if (!known.includes(name)) throw new Error(`Unknown flag --${name}`);
  const int = (name: string, fallback: number, min: number, max: number) => {
    const value = flags.get(name) ?? process.env[`BENCH_${name.replace(/-/g, "_").toUpperCase()}`];
    if (value === undefined || value === "") return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
    return n;
  };
  const url = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!url) throw new Error("bench:http needs BENCH_DATABASE_URL (a PostgreSQL server on this machine)");
  if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(new URL(url).hostname)) throw new Error("The benchmark only talks to a server on this machine");
  return {
    chats: int("chats", 60, 1, 300),
    viewers: int("viewers", 100, 0, 1000),
    instances: int("instances", 1, 1, 2),
    feedViewers: int("feed-viewers", 20, 0, 500),
    paceMs: int("pace-ms", 15, 1, 1000),
    port: int("port", 3110, 1024, 65535),
    timeoutS: int("timeout-s", 120, 5, 600),
    openings: int("openings", 400, 0, 10_000),
    notes: int("notes", 0, 0, LAUNCH_NOTES.length),
    rounds: int("rounds", 1, 1, 10),
    url,
  };
}

const f = (n: number, d = 0) => fixed(n, d);
/** How often the clients' event loop is sampled (see `clientLoopDelayP99Ms`). */
const LOOP_RESOLUTION_MS = 5;

interface Pass {
  answer: Answer;
  chats: number;
  viewers: number;
  ttft: number[];
  /** Message posted → its run's terminal event: how long until the whole reply was there. */
  replyMs: number[];
  /** POST of the message → its answer; that answer → the stream open. */
  postMs: number[];
  openMs: number[];
  /** Message answered → an extra viewer's stream open (its response's headers), per viewer. */
  viewerOpenMs: number[];
  /** First text → end, per chat. */
  streamMs: number[];
  chatLatency: number[];
  viewerLatency: number[];
  /** Text events received by every client, and how many of them were live (journaled after the stream opened). */
  texts: number;
  liveTexts: number;
  feedViewers: number;
  feedLatency: number[];
  lost: number;
  failures: string[];
  rssMb: number;
  cpuPercent: number;
  /** This benchmark's own clients (one core = 100 %), and the whole machine (all cores = 100 %). */
  clientCpuPercent: number;
  /** Each instance's CPU over the pass, % of a core (with two, what the second had left for its viewers). */
  instanceCpuPercent: number[];
  /**
   * How late this process's event loop ran at its worst 1 % over the pass, less the monitor's own 5 ms sampling: how
   * late the clients could be to note a receipt.
   */
  clientLoopDelayP99Ms: number;
  machineCpuPercent: number;
  runIds: string[];
  /** The reply's length in characters, as the chats received it. */
  replyChars: number;
  /**
   * The pass's CPU time divided by its chats (all its work: viewers and feed viewers included, every instance), of
   * the servers and of the database's backends: less noisy than latencies, the measure of a cut in work.
   */
  serverCpuMsPerChat: number;
  databaseCpuMsPerChat: number;
  wallMs: number;
}

/** How a chat's message is answered: its reply's stream (the page's way), or `{ runId }` and then a stream request. */
type Answer = "stream" | "json";

const PROMPT = "Give me a short status of the launch plan and what is left to do";

/**
 * What the agent may be told to remember before the passes (`--notes`). Each names the launch plan, so the prompt
 * recalls it and the offline model's answer quotes it: a reply as long as a real model's, streamed for seconds
 * rather than half of one, so that viewers who open while it streams are measured live.
 */
const LAUNCH_NOTES = [
  "The launch plan moves the public release to Thursday the 14th at 10:00 UTC; the status page, the changelog and the pricing page go live together, and support answers the launch inbox in two shifts from 08:00 to 20:00 UTC for the first three days, with the on-call engineer named in the release channel each morning before the first shift starts.",
  "Left to do for the launch plan: the billing migration must be rehearsed twice on a copy of production, the rollback script reviewed by someone who did not write it, and the load test repeated at twice last quarter's peak, because the last run stopped at 80 % of the target when the search service ran out of connections and nobody had raised the pool limit.",
  "The launch plan depends on the partners: the two resellers have the new price list, but the larger one still has to confirm its order form by Tuesday, and the translation of the help centre into German and Japanese is done for the pages that matter on day one, with the rest due a week after the release and tracked in the documentation board.",
  "Risks in the launch plan: the mobile app's review may take longer than the three days planned, so the web release does not wait for it; the email to existing customers is written and approved, but it must go out in batches of ten thousand an hour to keep the sender reputation, which means the last batch lands about nine hours after the first.",
  "After the launch plan's release day the team holds a review on Monday: sign-ups, conversion from trial, error rates and the support queue's waiting time against the targets set in the plan, and each owner brings one thing that went worse than expected and what they would change, so that the next release starts from what was learned this time.",
];

/** Tells the agent the first `count` launch notes in a chat of its own, each a "remember" command, one after another. */
async function tellNotes(origin: string, cookie: string, count: number, timeoutS: number): Promise<void> {
  if (count === 0) return;
  const session = String((await api(origin, cookie, "/api/sessions", { agentHandle: "scout" })).id);
  for (const note of LAUNCH_NOTES.slice(0, count)) {
    const sent = await sendAndFollow(origin, cookie, session, `remember ${note}`, AbortSignal.timeout(timeoutS * 1000));
    const told = await sent.follow;
    if (told.endAt === null || !told.text.includes("remember")) throw new Error(`The agent did not confirm a note: ${told.text.slice(0, 200)}`);
  }
}

async function runPass(
  instances: Instance[],
  cookies: string[],
  database: string,
  chats: number,
  viewers: number,
  feedViewers: number,
  timeoutS: number,
  answer: Answer,
): Promise<Pass> {
  const [first] = instances;
  const viewerHost = instances[instances.length - 1]!;
  const viewerCookie = cookies[cookies.length - 1]!;
  const sessions: string[] = [];
  for (let i = 0; i < chats; i++) sessions.push(String((await api(first!.origin, cookies[0]!, "/api/sessions", { agentHandle: "scout" })).id));
  const signal = AbortSignal.timeout(timeoutS * 1000);
  setMaxListeners(0, signal); // one listener per client
  const before = instances.map((i) => usageOf(i.child.pid!));
  const clientBefore = process.cpuUsage();
  const clientLoop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  clientLoop.enable();
  const machineBefore = machineCpu();
  const databaseBefore = databaseCpuMs(database);
  const peak = instances.map(() => 0);
  const sampler = setInterval(() => instances.forEach((inst, k) => (peak[k] = Math.max(peak[k]!, usageOf(inst.child.pid!).rssMb))), 250);
  let passRuns!: (ids: string[]) => void;
  const runIds = new Promise<string[]>((resolve) => (passRuns = resolve));
  const feeds = Array.from({ length: feedViewers }, () => followFeed(viewerHost.origin, viewerCookie, runIds, signal));
  const started = Date.now();
  const runs = await Promise.all(
    sessions.map(async (id, i) => {
      const postedAt = Date.now();
      const watchers = i < Math.ceil(viewers / 10) ? Math.min(10, viewers - i * 10) : 0;
      // The page's way: the message's answer is its reply's stream. The baseline: the answer names the run, whose
      // stream is then opened on its events route.
      const sent = answer === "stream" ? await sendAndFollow(first!.origin, cookies[0]!, id, PROMPT, signal) : null;
      const runId = sent?.runId ?? ((await api(first!.origin, cookies[0]!, `/api/sessions/${id}/messages`, { text: PROMPT })) as { runId: string }).runId;
      const answeredAt = sent?.answeredAt ?? Date.now();
      return {
        runId,
        postedAt,
        answeredAt,
        main: sent?.follow ?? follow(first!.origin, cookies[0]!, runId, signal),
        extra: Array.from({ length: watchers }, () => follow(viewerHost.origin, viewerCookie, runId, signal)),
      };
    }),
  );
  passRuns(runs.map((r) => r.runId));
  const pass: Pass = {
    answer,
    chats,
    viewers,
    ttft: [],
    replyMs: [],
    postMs: [],
    openMs: [],
    viewerOpenMs: [],
    streamMs: [],
    chatLatency: [],
    viewerLatency: [],
    texts: 0,
    liveTexts: 0,
    feedViewers,
    feedLatency: [],
    lost: 0,
    failures: [],
    rssMb: 0,
    cpuPercent: 0,
    clientCpuPercent: 0,
    instanceCpuPercent: [],
    clientLoopDelayP99Ms: 0,
    machineCpuPercent: 0,
    runIds: runs.map((r) => r.runId),
    replyChars: 0,
    serverCpuMsPerChat: 0,
    databaseCpuMsPerChat: 0,
    wallMs: 0,
  };
  let expected: string | null = null;
  for (const run of runs) {
    const main = await run.main;
    expected ??= main.text;
    if (main.endAt === null) pass.failures.push("a chat's stream did not end");
    if (main.seqProblem) pass.failures.push("a chat's stream skipped a sequence number");
    if (main.firstTextAt !== null) pass.ttft.push(main.firstTextAt - run.postedAt);
    if (main.endAt !== null) pass.replyMs.push(main.endAt - run.postedAt);
    pass.postMs.push(run.answeredAt - run.postedAt);
    if (main.openedAt !== null && answer === "json") pass.openMs.push(main.openedAt - run.answeredAt);
    if (main.firstTextAt !== null && main.endAt !== null) pass.streamMs.push(main.endAt - main.firstTextAt);
    pass.chatLatency.push(...main.latencies);
    pass.texts += main.texts;
    pass.liveTexts += main.latencies.length;
    for (const viewer of await Promise.all(run.extra)) {
      pass.viewerLatency.push(...viewer.latencies);
      if (viewer.openedAt !== null) pass.viewerOpenMs.push(viewer.openedAt - run.answeredAt);
      pass.texts += viewer.texts;
      pass.liveTexts += viewer.latencies.length;
      if (viewer.text !== main.text) pass.lost += Math.abs(main.text.length - viewer.text.length) || 1;
      if (viewer.seqProblem || viewer.endAt === null) pass.failures.push("a viewer's stream skipped a sequence number or did not end");
    }
    if (main.text !== expected) pass.lost += Math.abs(main.text.length - expected.length) || 1;
  }
  pass.replyChars = expected?.length ?? 0;
  for (const feed of await Promise.all(feeds)) {
    pass.feedLatency.push(...feed.latencies);
    if (!feed.complete) pass.failures.push("a feed viewer did not see every run finish");
    if (feed.seqProblem) pass.failures.push("a feed viewer's stream skipped a sequence number");
  }
  clearInterval(sampler);
  pass.wallMs = Date.now() - started;
  const after = instances.map((i) => usageOf(i.child.pid!));
  pass.rssMb = Math.max(...peak, ...after.map((a) => a.rssMb));
  const serverCpuMs = after.reduce((n, a, k) => n + a.cpuMs - before[k]!.cpuMs, 0);
  pass.cpuPercent = (serverCpuMs / pass.wallMs) * 100;
  pass.instanceCpuPercent = after.map((a, k) => ((a.cpuMs - before[k]!.cpuMs) / pass.wallMs) * 100);
  pass.serverCpuMsPerChat = serverCpuMs / chats;
  pass.databaseCpuMsPerChat = (databaseCpuMs(database) - databaseBefore) / chats;
  const client = process.cpuUsage(clientBefore);
  pass.clientCpuPercent = ((client.user + client.system) / 1000 / pass.wallMs) * 100;
  clientLoop.disable();
  // Each sample spans the monitor's resolution too: an idle loop reads about 5 ms.
  pass.clientLoopDelayP99Ms = Math.max(0, clientLoop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS);
  const machine = machineCpu();
  pass.machineCpuPercent = machine && machineBefore ? ((machine.busyMs - machineBefore.busyMs) / (machine.totalMs - machineBefore.totalMs)) * 100 : Number.NaN;
  return pass;
}

async function main(): Promise<number> {
  const options = readOptions();
  if (!fs.existsSync(".next/BUILD_ID")) console.log("No production build: `npm start` builds it first (a few minutes).");
  const name = `clawdeck_benchhttp_${crypto.randomBytes(5).toString("hex")}`;
  const admin = postgres(options.url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const u = new URL(options.url);
  u.pathname = `/${name}`;
  const shared = { authSecret: crypto.randomBytes(32).toString("base64"), key: crypto.randomBytes(32).toString("base64"), owner: OWNER };
  const instances: Instance[] = [];
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(",");
  let failed = false;
  try {
    instances.push(await startInstance(options.port, u.toString(), options.paceMs, shared));
    if (options.instances === 2) instances.push(await startInstance(await freePort(), u.toString(), options.paceMs, shared));
    const cookies = await Promise.all(instances.map((i) => signIn(i.origin)));
    await tellNotes(instances[0]!.origin, cookies[0]!, options.notes, options.timeoutS);
    console.log(
      `HTTP benchmark: ${options.chats} chats started at once, ${options.viewers} extra viewers (10 per run) and ${options.feedViewers} feed viewers ` +
        `on instance ${options.instances}, ` +
        `offline model at ${options.paceMs} ms per piece, ${options.instances} instance(s); node ${process.version}, ${os.cpus().length} CPUs`,
    );
    console.log(`load average at start: ${load()}`);
    // Warm-up, not measured: routes compiled and optimised, the database pool's connections open. A smaller one left the
    // first measured crowd pass, whichever kind it was, about twice as slow as the others.
    await runPass(instances, cookies, name, options.chats, 0, 1, options.timeoutS, "stream");
    const alone = await runPass(instances, cookies, name, 1, 0, 1, options.timeoutS, "stream");
    console.log(`the reply: ${alone.replyChars} characters${options.notes ? `, quoting ${options.notes} remembered note(s)` : ""}`);
    const rows: { label: string; pass: Pass; load: string }[] = [{ label: "one chat alone", pass: alone, load: load() }];
    // Alternated, so that neither kind always runs on the warmer or the more loaded machine.
    for (let round = 0; round < options.rounds; round++) {
      for (const answer of round % 2 === 0 ? (["json", "stream"] as const) : (["stream", "json"] as const)) {
        const crowd = await runPass(instances, cookies, name, options.chats, options.viewers, options.feedViewers, options.timeoutS, answer);
        rows.push({ label: `${options.chats} chats, ${answer === "stream" ? "answer streams" : "answer, then open"}`, pass: crowd, load: load() });
      }
    }
    const streamRatio = (p: Pass) => percentile(p.streamMs, 50) / percentile(alone.streamMs, 50);
    console.log("");
    console.log(
      `${options.viewers} extra viewers; "answer streams": the message's answer is its reply's stream (the chat page's way); ` +
        `"answer, then open": the answer names the run and its stream is opened next (the baseline)`,
    );
    console.log("pass                            delta→chat p50  p99  delta→viewer p50  p99  first text p50  p99  stream ms p50  ratio  lost  peak RSS MB  CPU %  load 1m");
    for (const { label, pass: p, load: l } of rows) {
      console.log(
        `${label.padEnd(30)}  ${f(percentile(p.chatLatency, 50)).padStart(14)}  ${f(percentile(p.chatLatency, 99)).padStart(3)}  ` +
          `${f(percentile(p.viewerLatency, 50)).padStart(16)}  ${f(percentile(p.viewerLatency, 99)).padStart(3)}  ` +
          `${f(percentile(p.ttft, 50)).padStart(14)}  ${f(percentile(p.ttft, 99)).padStart(4)}  ${f(percentile(p.streamMs, 50)).padStart(13)}  ` +
          `${f(streamRatio(p), 2).padStart(5)}  ${String(p.lost).padStart(4)}  ${f(p.rssMb).padStart(11)}  ${f(p.cpuPercent).padStart(5)}  ${l.split(",")[0]}`,
      );
    }
    const livePct = (p: Pass) => (p.texts ? (100 * p.liveTexts) / p.texts : Number.NaN);
    for (const { label, pass: p } of rows) {
      console.log(
        `${label}: first text = message answered p50 ${f(percentile(p.postMs, 50))} ms (p99 ${f(percentile(p.postMs, 99))})` +
          (p.answer === "json" ? `, then stream open p50 ${f(percentile(p.openMs, 50))} ms (p99 ${f(percentile(p.openMs, 99))})` : "") +
          `; whole reply (message posted → last event) p50 ${f(percentile(p.replyMs, 50))} ms (p99 ${f(percentile(p.replyMs, 99))}); ` +
          `${f(livePct(p))} % of ${p.texts} text events live (the rest replayed to streams that opened late)` +
          (p.viewerOpenMs.length ? `; extra viewers' streams open p50 ${f(percentile(p.viewerOpenMs, 50))} ms (p99 ${f(percentile(p.viewerOpenMs, 99))}) after the message was answered` : ""),
      );
      console.log(
        `${label}: feed item → viewer p50 ${f(percentile(p.feedLatency, 50))} ms (p99 ${f(percentile(p.feedLatency, 99))}), ` +
          `${p.feedViewers} feed viewer(s), ${p.feedLatency.length} live items received`,
      );
      console.log(
        `${label}: CPU over the pass: server ${f(p.cpuPercent)} % of a core` +
          (p.instanceCpuPercent.length > 1 ? ` (${p.instanceCpuPercent.map((c, k) => `instance ${k + 1}: ${f(c)} %`).join(", ")})` : "") +
          `, these clients ${f(p.clientCpuPercent)} % of a core (their event loop late by ${f(p.clientLoopDelayP99Ms)} ms at p99), ` +
          `whole machine ${f(p.machineCpuPercent)} % of ${os.cpus().length} cores (the rest is mostly the database); ` +
          `the pass's CPU per chat (all its work, viewers included, every instance): server ${f(p.serverCpuMsPerChat, 1)} ms, ` +
          `database ${f(p.databaseCpuMsPerChat, 1)} ms`,
      );
    }
    console.log(`load average at end: ${load()}`);
    for (const failure of rows.flatMap((r) => r.pass.failures)) {
      failed = true;
      console.log(`FAIL ${failure}`);
    }
    const common = `bench=http instances=${options.instances} pace_ms=${options.paceMs} notes=${options.notes} reply_chars=${alone.replyChars}`;
    console.log(
      `RESULT ${common} chats=1 viewers=0 answer=stream p50_ms=${f(percentile(alone.chatLatency, 50))} p99_ms=${f(percentile(alone.chatLatency, 99))} ` +
        `ttft_p50_ms=${f(percentile(alone.ttft, 50))} ttft_p99_ms=${f(percentile(alone.ttft, 99))} reply_p50_ms=${f(percentile(alone.replyMs, 50))} stream_p50_ms=${f(percentile(alone.streamMs, 50))} ` +
        `feed_viewers=1 feed_p50_ms=${f(percentile(alone.feedLatency, 50))} feed_p99_ms=${f(percentile(alone.feedLatency, 99))} ` +
        `lost=${alone.lost} rss_mb=${f(alone.rssMb)} cpu_pct=${f(alone.cpuPercent)} client_cpu_pct=${f(alone.clientCpuPercent)} machine_cpu_pct=${f(alone.machineCpuPercent)} ` +
        `load=${rows[0]!.load} mode=alone`,
    );
    for (const { pass: crowd, load: l } of rows.slice(1)) {
      const all = [...crowd.chatLatency, ...crowd.viewerLatency];
      console.log(
        `RESULT ${common} chats=${options.chats} viewers=${options.viewers} answer=${crowd.answer} p50_ms=${f(percentile(all, 50))} p99_ms=${f(percentile(all, 99))} ` +
          `viewer_p99_ms=${f(percentile(crowd.viewerLatency, 99))} live_pct=${f(livePct(crowd))} ttft_p50_ms=${f(percentile(crowd.ttft, 50))} ttft_p99_ms=${f(percentile(crowd.ttft, 99))} ` +
          `reply_p50_ms=${f(percentile(crowd.replyMs, 50))} reply_p99_ms=${f(percentile(crowd.replyMs, 99))} ` +
          `stream_ratio=${f(streamRatio(crowd), 2)} feed_viewers=${options.feedViewers} feed_p50_ms=${f(percentile(crowd.feedLatency, 50))} ` +
          `feed_p99_ms=${f(percentile(crowd.feedLatency, 99))} lost=${crowd.lost} rss_mb=${f(crowd.rssMb)} cpu_pct=${f(crowd.cpuPercent)} ` +
          `client_cpu_pct=${f(crowd.clientCpuPercent)} client_loop_p99_ms=${f(crowd.clientLoopDelayP99Ms)} machine_cpu_pct=${f(crowd.machineCpuPercent)} server_cpu_ms_per_chat=${f(crowd.serverCpuMsPerChat, 1)} ` +
          `db_cpu_ms_per_chat=${f(crowd.databaseCpuMsPerChat, 1)} load=${l} mode=${crowd.answer === "stream" ? "default" : "baseline"}`,
      );
    }
    // Last, once the passes' figures are printed: a failure here loses none of them.
    const ended = alone.runIds[0];
    if (options.openings > 0 && ended && alone.failures.length === 0) {
      try {
        const cost = await openingCost(instances[0]!, cookies[0]!, ended, options.openings, options.timeoutS);
        console.log(
          `server CPU per request, ${options.openings} requests 20 at a time: a signed-in read (GET /api/workspace/time-zone, ` +
            `${f(cost.read.bytes)} bytes) ${f(cost.read.cpuMs, 2)} ms; opening the stream of an ended run (${f(cost.stream.bytes)} bytes replayed, ` +
            `then the end) ${f(cost.stream.cpuMs, 2)} ms`,
        );
        const opening = `bench=http-open instances=${options.instances} requests=${options.openings} concurrency=20`;
        console.log(`RESULT ${opening} route=workspace-time-zone cpu_ms_per_request=${f(cost.read.cpuMs, 2)} bytes=${f(cost.read.bytes)} mode=baseline`);
        console.log(`RESULT ${opening} route=run-events cpu_ms_per_request=${f(cost.stream.cpuMs, 2)} bytes=${f(cost.stream.bytes)} mode=default`);
      } catch (error) {
        failed = true;
        console.log(`FAIL opening streams: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    for (const instance of instances) await instance.stop();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end({ timeout: 5 });
  }
  return failed ? 1 : 0;
}

runBenchmark(main);
