/**
 * Samples of a Prometheus text exposition, keyed `name{label="value",…}` with labels in name
 * order (`name` alone without labels). Enough of the format for the broker's own output: no
 * timestamps, label values without escaped quotes.
 */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const [, name, labels, value] = match as unknown as [string, string, string | undefined, string];
    samples.set(sampleKey(name, labelsOf(labels ?? "")), Number(value));
  }
  return samples;
}

function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of text.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"/g)) labels[pair[1] as string] = pair[2] as string;
  return labels;
}

/** The key `parseMetrics` files a sample under. */
export function sampleKey(name: string, labels: Record<string, string> = {}): string {
  const names = Object.keys(labels).sort();
  return names.length === 0 ? name : `${name}{${names.map((label) => `${label}="${labels[label]}"`).join(",")}}`;
}

/** GET `<url>/metrics`, parsed; throws unless it answers 200 in Prometheus' text format. */
export async function scrape(url: string): Promise<Metrics> {
  const response = await fetch(`${url}/metrics`);
  if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}`);
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("text/plain; version=0.0.4")) throw new Error(`GET /metrics answered content-type ${type}`);
  return new Metrics(parseMetrics(await response.text()));
}

export class Metrics {
  constructor(readonly samples: Map<string, number>) {}

  /** The sample's value; undefined when the series is not exposed. */
  get(name: string, labels: Record<string, string> = {}): number | undefined {
    return this.samples.get(sampleKey(name, labels));
  }

  /** The sample's value, 0 when absent (for counters compared before and after). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.get(name, labels) ?? 0;
  }

  /** Whether any series of `name` is exposed. */
  has(name: string): boolean {
    for (const key of this.samples.keys()) if (key === name || key.startsWith(`${name}{`)) return true;
    return false;
  }
}
