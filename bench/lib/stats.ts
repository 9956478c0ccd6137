/** Order statistics for benchmark samples. Nearest-rank percentiles: every reported value was observed. */

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The `p`-th percentile (0 < p ≤ 100) by nearest rank; NaN for no samples. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const ordered = sorted(values);
  const rank = Math.min(ordered.length, Math.max(1, Math.ceil((p / 100) * ordered.length)));
  return ordered[rank - 1] as number;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Rounds to `digits` decimals (for JSON output that stays readable). */
export function round(value: number, digits = 0): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

export interface Distribution {
  readonly samples: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** p50/p90/p99/max of `values`, rounded to `digits` decimals. */
export function distribution(values: readonly number[], digits = 3): Distribution {
  return {
    samples: values.length,
    p50: round(percentile(values, 50), digits),
    p90: round(percentile(values, 90), digits),
    p99: round(percentile(values, 99), digits),
    max: round(percentile(values, 100), digits),
  };
}
