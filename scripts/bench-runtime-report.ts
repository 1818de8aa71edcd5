// What the run journal's benchmark prints: a pass's figures, its tables, the default / baseline ratios and the RESULT
// lines.

import { fixed, percentile } from "./bench-main";

export type Mode = "default" | "baseline";

export interface PassResult {
  driver: string;
  runs: number;
  deltas: number;
  mode: Mode;
  coalesceMs: number;
  rows: number;
  /** Bytes of stored payload (as JSON text) over the pass's rows. */
  bytes: number;
  /** Group-commit transactions during the pass (default mode). */
  flushes: number;
  /** Model deltas no subscriber received. */
  lost: number;
  load: string;
  wallMs: number;
  delivered: number;
  /** Model delta yielded → subscriber received it. */
  latencies: number[];
  /** Model delta yielded → the journal write holding it committed (the runtime's publish call). */
  toCommit: number[];
  /** That commit → subscriber received it. */
  toSubscriber: number[];
  /** Mean time from a run's first to its last text delta, as the model actually yielded them. */
  modelSpanMs: number;
  loopDelayP99Ms: number;
  /** CPU time of this process (runtime, subscribers and, for PGlite, the database) over wall time. */
  cpuPercent: number;
  /** CPU time of the whole machine (every process, the PostgreSQL server included) over wall time; NaN off Linux. */
  machinePercent: number;
  failures: string[];
}


const modeName = (r: PassResult) => (r.mode === "default" ? "default: group commit" : `baseline: ${r.coalesceMs} ms, read back`);
const perDelta = (r: PassResult, n: number) => n / (r.runs * r.deltas);

function table(header: string[], rows: string[][], leftColumns: number): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export function mainTable(results: PassResult[]): string {
  const header = ["driver", "N", "M", "mode", "rows", "rows/delta", "bytes/delta", "events/s", "p50 ms", "p99 ms", "max ms", "lost", "wall s", "load 1m"];
  const rows = results.map((r) => {
    const seconds = r.wallMs / 1000;
    return [
      r.driver,
      String(r.runs),
      String(r.deltas),
      modeName(r),
      String(r.rows),
      fixed(perDelta(r, r.rows), 3),
      fixed(perDelta(r, r.bytes), 1),
      fixed(r.delivered / seconds, 0),
      fixed(percentile(r.latencies, 50), 1),
      fixed(percentile(r.latencies, 99), 1),
      fixed(percentile(r.latencies, 100), 1),
      String(r.lost),
      fixed(seconds, 2),
      r.load.split(",")[0]!,
    ];
  });
  return table(header, rows, 4);
}

export function breakdownTable(results: PassResult[], idealSpanMs: number): string {
  const header = ["driver", "N", "mode", "yield→commit p50", "p99", "commit→subscriber p50", "p99", `model stream s (ideal ${fixed(idealSpanMs / 1000, 2)})`, "loop delay p99 ms", "process CPU %", "machine CPU %", "group commits", "rows/commit"];
  const rows = results.map((r) => [
    r.driver,
    String(r.runs),
    modeName(r),
    fixed(percentile(r.toCommit, 50), 1),
    fixed(percentile(r.toCommit, 99), 1),
    fixed(percentile(r.toSubscriber, 50), 1),
    fixed(percentile(r.toSubscriber, 99), 1),
    fixed(r.modelSpanMs / 1000, 2),
    fixed(r.loopDelayP99Ms, 1),
    fixed(r.cpuPercent, 0),
    fixed(r.machinePercent, 0),
    r.mode === "default" ? String(r.flushes) : "-",
    r.mode === "default" && r.flushes > 0 ? fixed(r.rows / r.flushes, 1) : "-",
  ]);
  return table(header, rows, 3);
}

export function ratioLine(now: PassResult, before: PassResult): string {
  const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : "-");
  return (
    `${now.driver} N=${now.runs}: default / baseline: p50 ${ratio(percentile(now.latencies, 50), percentile(before.latencies, 50))}, ` +
    `p99 ${ratio(percentile(now.latencies, 99), percentile(before.latencies, 99))}, ` +
    `rows ${ratio(now.rows, before.rows)}, bytes ${ratio(now.bytes, before.bytes)}, ` +
    `process CPU ${ratio(now.cpuPercent, before.cpuPercent)}`
  );
}

export function resultLine(r: PassResult, paceMs: number): string {
  return [
    "RESULT bench=runtime",
    `driver=${r.driver}`,
    `runs=${r.runs}`,
    `deltas=${r.deltas}`,
    `pace_ms=${paceMs}`,
    `p50_ms=${fixed(percentile(r.latencies, 50), 1)}`,
    `p99_ms=${fixed(percentile(r.latencies, 99), 1)}`,
    `rows_per_delta=${fixed(perDelta(r, r.rows), 3)}`,
    `bytes_per_delta=${fixed(perDelta(r, r.bytes), 1)}`,
    `lost=${r.lost}`,
    `load=${r.load}`,
    `mode=${r.mode}`,
  ].join(" ");
}
