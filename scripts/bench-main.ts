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
