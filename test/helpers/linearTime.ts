import { expect } from "vitest";

/** Rounds every check takes: the best of each side counts, so one collection or preemption is not the algorithm. */
const ROUNDS = 5;
/** Rounds a check may add while it would fail: a loaded machine slows some rounds, a quadratic path every one. */
const EXTRA_ROUNDS = 10;
/** A failing check stops after this long: a quadratic path fails with its figures, not at the test timeout. */
const FAILING_MS = 8_000;

/**
 * Expects `run` to take time linear in `n`: ten runs over inputs of `n / 10` against one over an
 * input of `n`, each side timed whole and the two interleaved, so both feel a loaded machine alike.
 * Linear is ~1×, quadratic ~10×; the bound is 4× plus 20 ms, on the best of five rounds of each side
 * (more while it would fail). Inputs are built fresh each round, outside the timing. No absolute
 * time is asserted; pick `n` (a multiple of ten) so that one run of `n` takes tens of milliseconds.
 */
export function expectLinear<T>(build: (n: number) => T, run: (input: T) => unknown, n: number, label?: string): void {
  if (!Number.isInteger(n / 10) || n <= 0) throw new RangeError(`expectLinear needs a positive multiple of ten, not ${n}`);
  const time = (size: number, times: number) => {
    const inputs = Array.from({ length: times }, () => build(size));
    const started = performance.now();
    for (const input of inputs) run(input);
    return performance.now() - started;
  };
  const began = performance.now();
  // A round to warm up: both sides then run code compiled alike.
  time(n / 10, 10);
  time(n, 1);
  let [small, big] = [Infinity, Infinity];
  const passes = () => big < small * 4 + 20;
  for (let round = 1; ; round++) {
    small = Math.min(small, time(n / 10, 10));
    big = Math.min(big, time(n, 1));
    if (passes() ? round >= ROUNDS : round >= ROUNDS + EXTRA_ROUNDS || performance.now() - began > FAILING_MS) break;
  }
  const figures = `one run of ${n} took ${big.toFixed(1)} ms at best, ten of ${n / 10} ${small.toFixed(1)} ms`;
  expect(big, label === undefined ? figures : `${label}: ${figures}`).toBeLessThan(small * 4 + 20);
}
