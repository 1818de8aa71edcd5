// Benchmark of the usage ledger's read side: seeds N usage rows (and their hourly and daily rollups)
// into a fresh database with set-based SQL, then times the overview cards' summary query (daily and
// hourly rollups) against the same-run baseline (the cards' earlier query, hourly rollups only, checked
// to give the same figures) and the usage page's report, for a 1-day and a 30-day range, each beside the
// same aggregations over the raw ledger. Ends with one RESULT line: the cards at the largest PostgreSQL
// size (else PGlite), 1-day range ("today"), with the load average of the machine.
// PostgreSQL gets a new database on BENCH_DATABASE_URL (or TEST_DATABASE_URL), dropped at the end
// (kept with BENCH_KEEP_DATABASE=1; `--database NAME` measures a kept one again, growing it if needed);
// PGlite a temporary folder, removed at the end.
//
//   npm run bench:ledger
//   npm run bench:ledger -- --postgres-rows 1000000,10000000 --pglite-rows 1000000 --iterations 20
//
// Flags (or the environment variable in brackets):
//   --postgres-rows LIST   ledger sizes on PostgreSQL, grown in place        [BENCH_POSTGRES_ROWS, 1000000,10000000]
//   --pglite-rows LIST     ledger sizes on PGlite                             [BENCH_PGLITE_ROWS, 1000000]
//   --iterations N         timed runs of each rollup query                    [BENCH_ITERATIONS, 20]
//   --raw-iterations N     timed runs of each raw-ledger query (slow)         [BENCH_RAW_ITERATIONS, 5]
//   --days D               how many days back the rows are spread             [BENCH_DAYS, 90]
//   --database NAME        a kept PostgreSQL bench database to measure again  [BENCH_DATABASE]
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { getUsageReport } from "../lib/billing/report";
import { getUsageSummary } from "../lib/billing/summary";
import { openDatabase, rowsOf, type Database, type DatabaseHandle } from "../lib/db/client";
import { agents, usageEvents, usageRollupsDaily, usageRollupsHourly, workspaces } from "../lib/db/schema";
import { getUsageSummaryHourly } from "./bench-ledger-baseline";
import { percentile } from "./bench-main";

const WORKSPACES = 4;
const AGENTS_PER_WORKSPACE = 20;
const CHUNK = 1_000_000;

function options() {
  const flags = new Map<string, string>();
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]!;
    const value = argv[i + 1];
    if (!name.startsWith("--") || value === undefined) throw new Error(`Expected --flag value pairs, got ${argv.slice(i).join(" ")}`);
    flags.set(name.slice(2), value);
  }
  const known = ["postgres-rows", "pglite-rows", "iterations", "raw-iterations", "days", "database"];
  for (const name of flags.keys()) if (!known.includes(name)) throw new Error(`Unknown flag --${name} (known: ${known.join(", ")})`);
  const raw = (name: string, fallback: string) => flags.get(name) ?? process.env[`BENCH_${name.replace(/-/g, "_").toUpperCase()}`] ?? fallback;
  const list = (name: string, fallback: string) =>
    raw(name, fallback)
      .split(",")
      .map((v) => v.trim())
      .filter(Boolean)
      .map((v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1_000 || n > 50_000_000) throw new Error(`--${name}: sizes are whole numbers from 1,000 to 50,000,000, not ${v}`);
        return n;
      })
      .sort((a, b) => a - b);
  const int = (name: string, fallback: number) => {
    const n = Number(raw(name, String(fallback)));
    if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error(`--${name} must be a whole number from 1 to 1000`);
    return n;
  };
  const url = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  if (url && !["127.0.0.1", "localhost", "::1", "[::1]"].includes(new URL(url).hostname)) {
    throw new Error(`The benchmark creates and drops a database: it only talks to a server on this machine, not ${new URL(url).hostname}`);
  }
  return {
    url,
    postgresRows: url ? list("postgres-rows", "1000000,10000000") : [],
    pgliteRows: list("pglite-rows", "1000000"),
    iterations: int("iterations", 20),
    rawIterations: int("raw-iterations", 5),
    days: int("days", 90),
    database: databaseName(raw("database", "")),
  };
}

function databaseName(name: string): string | null {
  if (!name) return null;
  if (!/^clawdeck_bench_[0-9a-f]{8}$/.test(name)) throw new Error(`--database takes a kept bench database (clawdeck_bench_xxxxxxxx), not ${name}`);
  return name;
}

const started = performance.now();
const log = (message: string) => console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}`);

interface Seeded {
  workspaceId: string;
  now: Date;
}

/** Workspaces and agents for the rows to belong to; the first workspace is the one measured. */
async function seedOwners(db: Database): Promise<string[]> {
  const ids: string[] = [];
  for (let w = 0; w < WORKSPACES; w++) {
    const [ws] = await db.insert(workspaces).values({ slug: `bench-${w}`, name: `Bench ${w}` }).returning({ id: workspaces.id });
    ids.push(ws!.id);
    await db.insert(agents).values(
      Array.from({ length: AGENTS_PER_WORKSPACE }, (_, a) => ({ workspaceId: ws!.id, handle: `agent${a}`, name: `Agent ${a}`, model: "claude-sonnet-4-6" })),
    );
  }
  await db.execute(sql`create table bench_agents as
    select (row_number() over (order by a.workspace_id, a.handle) - 1)::int as slot, a.workspace_id, a.id as agent_id
    from ${agents} a`);
  return ids;
}

/**
 * Appends rows [from, to) to the ledger: spread evenly over the last `days` days, across the
 * workspaces, agents, four models and three sources, priced at $3 / $15 per Mtok. Secondary
 * indexes are dropped first and rebuilt after (as a bulk load would), then the rollups are
 * rebuilt from the ledger, so they hold exactly its sums.
 */
async function growLedger(db: Database, from: number, to: number, days: number, now: Date) {
  const spanSeconds = days * 86_400;
  const slots = WORKSPACES * AGENTS_PER_WORKSPACE;
  await db.execute(sql`drop index if exists usage_events_idempotency_key, usage_events_workspace_created_idx, usage_events_run_idx`);
  for (let start = from; start < to; start += CHUNK) {
    const end = Math.min(to, start + CHUNK);
    await db.execute(sql`
      insert into ${usageEvents} (workspace_id, agent_id, source_kind, source_id, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, credits, idempotency_key, created_at)
      select b.workspace_id, b.agent_id,
             (case when g % 10 < 8 then 'run' when g % 10 = 8 then 'judge' else 'door' end)::usage_source,
             'bench-' || (g / 7),
             (array['claude-sonnet-4-6', 'claude-haiku-4-5', 'claude-opus-4-1', 'glm:glm-4.6'])[1 + (g % 4)],
             t.input, t.output, 0, 0, t.input * 3 + t.output * 15,
             'bench:' || g,
             -- A multiplicative hash spreads every row over the span, so a grown ledger keeps an even spread.
             ${now.toISOString()}::timestamptz - make_interval(secs => ((g * 2654435761) % ${spanSeconds})::float8 + 0.5)
      from generate_series(${start}::bigint, ${end - 1}::bigint) g
      join bench_agents b on b.slot = (g % ${slots})::int
      cross join lateral (select 200 + (g * 7919) % 3000 as input, 20 + (g * 104729) % 800 as output) t`);
    log(`  ${end.toLocaleString("en-US")} of ${to.toLocaleString("en-US")} rows`);
  }
  log("  rebuilding the ledger's indexes");
  await db.execute(sql`create unique index usage_events_idempotency_key on ${usageEvents} (idempotency_key)`);
  await db.execute(sql`create index usage_events_workspace_created_idx on ${usageEvents} (workspace_id, created_at)`);
  await db.execute(sql`create index usage_events_run_idx on ${usageEvents} (run_id)`);
  log("  rebuilding the hourly rollups from the ledger");
  await db.execute(sql`delete from ${usageRollupsHourly}`);
  await db.execute(sql`
    insert into ${usageRollupsHourly} (workspace_id, bucket, agent_id, model, source_kind, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, credits, unpriced_calls)
    select workspace_id, date_trunc('hour', created_at, 'UTC'), agent_id, model, source_kind, count(*), sum(input_tokens), sum(output_tokens),
           sum(cache_read_tokens), sum(cache_write_tokens), sum(credits), sum(unpriced)
    from ${usageEvents} group by 1, 2, 3, 4, 5`);
  log("  rebuilding the daily rollups from the hourly ones");
  await db.execute(sql`delete from ${usageRollupsDaily}`);
  await db.execute(sql`
    insert into ${usageRollupsDaily} (workspace_id, day, agent_id, model, source_kind, calls, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, credits, unpriced_calls)
    select workspace_id, date_trunc('day', bucket, 'UTC'), agent_id, model, source_kind, sum(calls), sum(input_tokens), sum(output_tokens),
           sum(cache_read_tokens), sum(cache_write_tokens), sum(credits), sum(unpriced_calls)
    from ${usageRollupsHourly} group by 1, 2, 3, 4, 5`);
  await settle(db);
}

/**
 * Statistics for the planner, and the rollups vacuumed as autovacuum would after a bulk load: their pages
 * marked all-visible, so the covering indexes answer without visiting the table.
 */
async function settle(db: Database) {
  await db.execute(sql`analyze`);
  await db.execute(sql`vacuum ${usageRollupsHourly}`);
  await db.execute(sql`vacuum ${usageRollupsDaily}`);
}

/** The cards' spend over the raw ledger: what the summary would cost without rollups. */
async function rawSummary(db: Database, workspaceId: string, from: Date, to: Date) {
  const day = 86_400_000;
  const at = (ms: number) => new Date(to.getTime() - ms).toISOString();
  const span = to.getTime() - from.getTime();
  await db.execute(sql`
    select sum(credits) filter (where created_at >= ${from.toISOString()}::timestamptz) as range_now,
           sum(credits) filter (where created_at >= ${new Date(from.getTime() - span).toISOString()}::timestamptz and created_at < ${from.toISOString()}::timestamptz) as range_before,
           sum(credits) filter (where created_at >= ${at(7 * day)}::timestamptz) as week_now,
           sum(credits) filter (where created_at >= ${at(14 * day)}::timestamptz and created_at < ${at(7 * day)}::timestamptz) as week_before,
           sum(credits) filter (where created_at >= ${at(30 * day)}::timestamptz) as month_now,
           sum(credits) filter (where created_at < ${at(30 * day)}::timestamptz) as month_before,
           sum(input_tokens + output_tokens) filter (where created_at >= ${from.toISOString()}::timestamptz) as tokens
    from ${usageEvents}
    where workspace_id = ${workspaceId} and created_at >= ${new Date(Math.min(from.getTime() - span, to.getTime() - 60 * day)).toISOString()}::timestamptz and created_at < ${to.toISOString()}::timestamptz`);
  await db.execute(sql`
    select agent_id, sum(credits) from ${usageEvents}
    where workspace_id = ${workspaceId} and created_at >= ${at(7 * day)}::timestamptz and created_at < ${to.toISOString()}::timestamptz
    group by agent_id order by 2 desc limit 5`);
}

/** The usage page's table and series over the raw ledger. */
async function rawReport(db: Database, workspaceId: string, from: Date, to: Date) {
  const where = sql`workspace_id = ${workspaceId} and created_at >= ${from.toISOString()}::timestamptz and created_at < ${to.toISOString()}::timestamptz`;
  const unit = to.getTime() - from.getTime() <= 3 * 86_400_000 ? sql.raw("'hour'") : sql.raw("'day'");
  await db.execute(sql`select agent_id, count(*), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens), sum(credits), sum(unpriced) from ${usageEvents} where ${where} group by 1`);
  await db.execute(sql`select date_trunc(${unit}, created_at, 'UTC'), agent_id, sum(credits), sum(input_tokens + output_tokens) from ${usageEvents} where ${where} group by 1, 2`);
}

type Timing = { p50: number; p95: number };

function percentiles(samples: number[]): Timing {
  return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function time(iterations: number, fn: () => Promise<unknown>): Promise<Timing> {
  await fn();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return percentiles(samples);
}

/** Two queries timed in turns (a, b, a, b, …), so both meet the same load on a shared machine. */
async function timePair(iterations: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[Timing, Timing]> {
  await a();
  await b();
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < iterations; i++) {
    for (const [k, fn] of [a, b].entries()) {
      const t = performance.now();
      await fn();
      samples[k]!.push(performance.now() - t);
    }
  }
  return [percentiles(samples[0]), percentiles(samples[1])];
}

interface Row {
  driver: string;
  rows: number;
  query: string;
  range: string;
  /** The query as it was before (cards: hourly rollups only), timed in the same run; none for the usage page. */
  baseline: Timing | null;
  rollup: Timing;
  raw: Timing;
}

async function measure(db: Database, driver: string, rows: number, seeded: Seeded, iterations: number, rawIterations: number): Promise<Row[]> {
  const [check] = rowsOf<{ ledger: string; rollup: string; daily: string }>(
    await db.execute(sql`select (select sum(credits) from ${usageEvents} where workspace_id = ${seeded.workspaceId})::text as ledger,
                                (select sum(credits) from ${usageRollupsHourly} where workspace_id = ${seeded.workspaceId})::text as rollup,
                                (select sum(credits) from ${usageRollupsDaily} where workspace_id = ${seeded.workspaceId})::text as daily`),
  );
  if (check?.ledger !== check?.rollup) throw new Error(`Hourly rollups (${check?.rollup}) differ from the ledger (${check?.ledger})`);
  if (check?.ledger !== check?.daily) throw new Error(`Daily rollups (${check?.daily}) differ from the ledger (${check?.ledger})`);
  log(`  hourly and daily rollups equal the ledger: ${Number(check!.ledger).toLocaleString("en-US")} credits in the measured workspace`);
  const out: Row[] = [];
  for (const days of [1, 30]) {
    const to = seeded.now;
    const from = new Date(to.getTime() - days * 86_400_000);
    const range = days === 1 ? "1 day" : "30 days";
    const input = { from, to, includeSpend: true, now: to };
    const [before, summary] = await Promise.all([getUsageSummaryHourly(db, seeded.workspaceId, input), getUsageSummary(db, seeded.workspaceId, input)]);
    // The figures both make: the earlier query never said what caching saved.
    const after = { ...summary, spend: summary.spend && { ...summary.spend, savedByCaching: undefined } };
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      throw new Error(`The cards differ from the baseline over ${range}:\n${JSON.stringify(before)}\n${JSON.stringify(after)}`);
    }
    log(`  timing the ${range} range (the cards give the same figures as the baseline)`);
    const [baseline, rollup] = await timePair(
      iterations,
      () => getUsageSummaryHourly(db, seeded.workspaceId, input),
      () => getUsageSummary(db, seeded.workspaceId, input),
    );
    out.push({
      driver,
      rows,
      query: "summary (cards)",
      range,
      baseline,
      rollup,
      // The same summary, with its spend and token sums read from the raw ledger instead of the rollups.
      raw: await time(rawIterations, () =>
        Promise.all([rawSummary(db, seeded.workspaceId, from, to), getUsageSummary(db, seeded.workspaceId, { from, to, includeSpend: false, now: to })]),
      ),
    });
    out.push({
      driver,
      rows,
      query: "usage page (by agent)",
      range,
      baseline: null,
      rollup: await time(iterations, () => getUsageReport(db, seeded.workspaceId, { from, to, group: "agent", tz: "UTC" })),
      raw: await time(rawIterations, () => rawReport(db, seeded.workspaceId, from, to)),
    });
  }
  return out;
}

async function runDriver(name: "postgres" | "pglite", sizes: number[], open: () => Promise<DatabaseHandle>, opts: ReturnType<typeof options>, reuse = false): Promise<Row[]> {
  const handle = await open();
  const results: Row[] = [];
  try {
    await handle.migrate();
    let workspaceId: string;
    let have = 0;
    // Whole hours, so the 1-day and 30-day ranges hold exactly the rollup buckets they name.
    let now = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const [kept] = reuse
      ? rowsOf<{ id: string; rows: string; newest: string }>(
          await handle.db.execute(sql`select w.id, (select count(*) from ${usageEvents})::text as rows,
                                         (select max(created_at) from ${usageEvents})::text as newest
                                  from ${workspaces} w where w.slug = 'bench-0'`),
        )
      : [];
    if (kept) {
      workspaceId = kept.id;
      have = Number(kept.rows);
      // The rows were spread back from the hour the database was seeded in: measure from there.
      now = new Date(Math.ceil(new Date(kept.newest).getTime() / 3_600_000) * 3_600_000);
      log(`${name}: measuring the kept database (${have.toLocaleString("en-US")} rows)`);
      await settle(handle.db);
    } else {
      [workspaceId] = (await seedOwners(handle.db)) as [string];
    }
    for (const size of sizes) {
      if (size > have) {
        log(`${name}: growing the ledger to ${size.toLocaleString("en-US")} rows`);
        await growLedger(handle.db, have, size, opts.days, now);
        have = size;
      } else if (size < have) continue;
      else if (kept) {
        const [daily] = rowsOf<{ n: string }>(await handle.db.execute(sql`select count(*)::text as n from ${usageRollupsDaily}`));
        if (Number(daily?.n) === 0) {
          log("  the kept database has no daily rollups yet: rebuilding them");
          await growLedger(handle.db, have, have, opts.days, now);
        }
      }
      results.push(...(await measure(handle.db, name, size, { workspaceId, now }, opts.iterations, opts.rawIterations)));
    }
  } finally {
    await handle.close();
  }
  return results;
}

function printTable(rows: Row[]) {
  const ms = (n: number) => (n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));
  const lines = [
    "| driver | ledger rows | query | range | before p50 ms | before p95 ms | now p50 ms | now p95 ms | raw ledger p50 ms | raw ledger p95 ms | before / now (p95) |",
    "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.driver} | ${r.rows.toLocaleString("en-US")} | ${r.query} | ${r.range} | ${r.baseline ? ms(r.baseline.p50) : "="} | ${r.baseline ? ms(r.baseline.p95) : "="} | ${ms(r.rollup.p50)} | ${ms(r.rollup.p95)} | ${ms(r.raw.p50)} | ${ms(r.raw.p95)} | ${r.baseline ? `${(r.baseline.p95 / r.rollup.p95).toFixed(1)}×` : ""} |`,
    ),
  ];
  console.log(`\n${lines.join("\n")}\n`);
}

async function main() {
  const opts = options();
  console.log(
    `Ledger benchmark on ${os.cpus().length} CPUs: ${WORKSPACES} workspaces × ${AGENTS_PER_WORKSPACE} agents, rows over ${opts.days} days, the first workspace measured (a quarter of the rows). ` +
      `${opts.iterations} timed runs per rollup query, ${opts.rawIterations} per raw-ledger query.`,
  );
  const results: Row[] = [];
  if (opts.url && opts.postgresRows.length > 0) {
    const name = opts.database ?? `clawdeck_bench_${crypto.randomBytes(4).toString("hex")}`;
    const admin = postgres(opts.url, { max: 1, onnotice: () => {} });
    if (!opts.database) await admin.unsafe(`create database ${name}`);
    // Interrupted (Ctrl-C): the database is dropped all the same.
    const dropOnSignal = () => {
      log(`interrupted: dropping ${name}`);
      const again = postgres(opts.url!, { max: 1, onnotice: () => {} });
      void again
        .unsafe(`drop database if exists ${name} with (force)`)
        .finally(() => again.end())
        .finally(() => process.exit(130));
    };
    process.once("SIGINT", dropOnSignal);
    process.once("SIGTERM", dropOnSignal);
    const u = new URL(opts.url);
    u.pathname = `/${name}`;
    try {
      results.push(...(await runDriver("postgres", opts.postgresRows, () => openDatabase({ driver: "postgres", url: u.toString(), max: 2 }), opts, Boolean(opts.database))));
    } finally {
      if (process.env.BENCH_KEEP_DATABASE === "1" || opts.database) log(`postgres: kept ${name} (measure it again with --database ${name})`);
      else {
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        log(`postgres: dropped ${name}`);
      }
      await admin.end();
    }
  } else {
    console.log("(No BENCH_DATABASE_URL or TEST_DATABASE_URL: PostgreSQL is skipped.)");
  }
  if (opts.pgliteRows.length > 0) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "clawdeck-ledger-bench-"));
    try {
      results.push(...(await runDriver("pglite", opts.pgliteRows, () => openDatabase({ driver: "pglite", dataDir: path.join(root, "pglite") }), opts)));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      log("pglite: removed the temporary folder");
    }
  }
  printTable(results);
  const cards = [...results].reverse().find((r) => r.query === "summary (cards)" && r.range === "1 day");
  if (cards?.baseline) {
    const f = (n: number) => n.toFixed(2);
    console.log(
      `RESULT bench=ledger driver=${cards.driver} rows=${cards.rows} mode=default range=1d p50_ms=${f(cards.rollup.p50)} p95_ms=${f(cards.rollup.p95)} ` +
        `baseline_p50_ms=${f(cards.baseline.p50)} baseline_p95_ms=${f(cards.baseline.p95)} load1=${os.loadavg()[0]!.toFixed(2)}`,
    );
  }
  log("done");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
