// How every benchmark script ends: its exit code from `main`, or a message and 1 when it could not run at all.
export function runBenchmark(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`The benchmark could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exitCode = 1;
    },
  );
}

/**
 * The p-th percentile of the samples by nearest rank (the smallest sample with at least p % of them at or below
 * it), so every benchmark reads a p99 the same way; NaN when there are none. The samples need not be sorted.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A figure with `digits` decimals, or "-" when there is none (NaN, infinite). */
export const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
