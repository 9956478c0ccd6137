/** How big a benchmark run is: `BENCH_QUICK=1` shrinks every benchmark to a smoke run (numbers not comparable). */
export const quick = process.env.BENCH_QUICK === "1";

/** `BENCH_<NAME>` as a positive integer, else the full or quick default. */
export function sized(name: string, full: number, smoke: number): number {
  const raw = process.env[`BENCH_${name}`];
  const value = raw === undefined ? Number.NaN : Number(raw);
  return Number.isInteger(value) && value > 0 ? value : quick ? smoke : full;
}

/** Prints the benchmark's one JSON result line (the runner takes the last line with a `benchmark` key). */
export function emit(result: { readonly benchmark: string } & Record<string, unknown>): void {
  console.log(JSON.stringify({ ...result, quick }));
}

/** Progress for humans, on stderr so stdout stays one JSON line. */
export function note(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Monotonic nanoseconds (CLOCK_MONOTONIC on Linux): comparable across processes on one machine. */
export function nowNs(): bigint {
  return process.hrtime.bigint();
}

/** Milliseconds between two `nowNs()` readings, as a float. */
export function elapsedMs(fromNs: bigint, toNs: bigint): number {
  return Number(toNs - fromNs) / 1e6;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
