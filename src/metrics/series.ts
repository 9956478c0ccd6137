import type { Metric, Registry } from "prom-client";

/** A sample as prom-client's registry formats it. */
interface Sample {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

/** What prom-client's registry asks of a metric it formats: its name, help and type, and `get()`. */
interface CollectedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "histogram";
  readonly aggregator: "sum";
  get(): Promise<{ name: string; help: string; type: "counter" | "histogram"; aggregator: "sum"; values: Sample[] }>;
}

/**
 * Registers a hand-written metric on a prom-client registry. The registry formats any object
 * with a name and a `get()` that answers as its own metrics do; its TypeScript types name only
 * its own classes, so the object is passed as one of them.
 */
function register(registry: Registry, metric: CollectedMetric): void {
  registry.registerMetric(metric as unknown as Metric);
}

/**
 * A counter family whose label sets are all known up front (`keys`, each with its labels): every
 * series is exposed from the start at 0, and `inc` is one addition into a typed array. prom-client's
 * own `Counter` hashes the label object on every call (~170 ns); this runs on the broker's hot path.
 */
export class CounterSeries<K extends string> implements CollectedMetric {
  readonly type = "counter";
  readonly aggregator = "sum";
  readonly #values: Float64Array;
  readonly #slots: Record<K, number>;
  readonly #labels: Readonly<Record<string, string>>[];

  constructor(
    readonly name: string,
    readonly help: string,
    keys: readonly K[],
    labelsOf: (key: K) => Readonly<Record<string, string>>,
    registry: Registry | undefined,
  ) {
    this.#values = new Float64Array(keys.length);
    this.#slots = Object.fromEntries(keys.map((key, i) => [key, i])) as Record<K, number>;
    this.#labels = keys.map(labelsOf);
    if (registry !== undefined) register(registry, this);
  }

  inc(key: K, count = 1): void {
    const slot = this.#slots[key];
    if (slot !== undefined) this.#values[slot] = (this.#values[slot] as number) + count;
  }

  /** The series' value now (tests, and the bench's check that counting happened). */
  value(key: K): number {
    const slot = this.#slots[key];
    return slot === undefined ? 0 : (this.#values[slot] as number);
  }

  get(): Promise<{ name: string; help: string; type: "counter"; aggregator: "sum"; values: Sample[] }> {
    const values = this.#labels.map((labels, i) => ({ value: this.#values[i] as number, labels }));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

/**
 * One histogram series with fixed labels: `observe` finds the bucket and adds, nothing more
 * (prom-client's `observe` builds a closure and hashes labels per call). Exposed as cumulative
 * `_bucket` samples with `le`, `_sum` and `_count`, as Prometheus expects.
 */
export class HistogramSeries implements CollectedMetric {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly #bounds: Float64Array;
  /** Per bucket, not cumulative; the last slot is `+Inf`. */
  readonly #counts: Float64Array;
  #sum = 0;
  #count = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    buckets: readonly number[],
    readonly labels: Readonly<Record<string, string>>,
    registry: Registry | undefined,
  ) {
    this.#bounds = Float64Array.from([...buckets].sort((a, b) => a - b));
    this.#counts = new Float64Array(buckets.length + 1);
    if (registry !== undefined) register(registry, this);
  }

  observe(value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.#counts[i] = (this.#counts[i] as number) + 1;
    this.#sum += value;
    this.#count += 1;
  }

  get count(): number {
    return this.#count;
  }

  get(): Promise<{ name: string; help: string; type: "histogram"; aggregator: "sum"; values: Sample[] }> {
    const values: Sample[] = [];
    let cumulative = 0;
    for (let i = 0; i < this.#counts.length; i++) {
      cumulative += this.#counts[i] as number;
      const le = i < this.#bounds.length ? (this.#bounds[i] as number) : "+Inf";
      values.push({ metricName: `${this.name}_bucket`, labels: { ...this.labels, le }, value: cumulative });
    }
    values.push({ metricName: `${this.name}_sum`, labels: this.labels, value: this.#sum });
    values.push({ metricName: `${this.name}_count`, labels: this.labels, value: this.#count });
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}
