/** What `npm run bench` writes to bench/results.json: the machine, and each benchmark's JSON line with its context. */
export interface BenchResults {
  readonly generatedAt: string;
  readonly quick: boolean;
  readonly machine: Machine;
  readonly benchmarks: Readonly<Record<string, BenchmarkRecord>>;
}

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly node: string;
  readonly natsServer: string;
}

/** One benchmark's result line plus when it ran and how busy the machine was. */
export interface BenchmarkRecord {
  readonly ranAt: string;
  readonly seconds: number;
  /** 1-minute load average before and after; it trails, and counts the previous benchmark too. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  /** Share of all cores' time that went to other processes while it ran (Linux; absent elsewhere). */
  readonly otherWorkShare?: number;
  /** The NODE_OPTIONS its process and Node children ran with ("" = Node's defaults); absent in records from before the runner set them. */
  readonly nodeOptions?: string;
  readonly result: Record<string, unknown>;
}

/** A number at `path` (dot-separated) in a result, or undefined. */
export function numberAt(result: Record<string, unknown> | undefined, path: string): number | undefined {
  let value: unknown = result;
  for (const key of path.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}
