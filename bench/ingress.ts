// Ingress throughput on the embedded bus, turnstream side by side with the naive baseline
// (bench/baseline/) and the raw ceiling (bench/lib/rawCeiling.ts: frames decoded and validated,
// nothing else): gateway frames from a loopback WebSocket gateway in its own process, through
// parse → skip → trust → queue (msg-id dedupe) → per-session lane → triage (proactive
// events) → an instant in-process agent. Runs alternate between the three, so machine noise hits
// all alike. A fourth contender is turnstream with `[metrics]` on, for what the instruments cost
// (each of its runs beside a metrics-off run, which goes first every other run). Then one more batch per broker
// with the Observable counter installed (not timed: the counter's hooks slow rxjs down). Prints
// one JSON line: medians of the runs, the ratios, and Observables and subscriptions created per event.
import { emit, note, sized, sleep } from "./lib/benchEnv.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { ingressRun, PROACTIVE_EVERY, SESSIONS } from "./lib/ingressRuns.js";
import { startNaiveIngress } from "./lib/naiveIngress.js";
import { installObservableCounter, type ObservableCount } from "./lib/observableCount.js";
import { measureProcessCost } from "./lib/processCost.js";
import { startRawCeiling } from "./lib/rawCeiling.js";
import { median, round } from "./lib/stats.js";
import { startTurnstreamIngress, type IngressSubject } from "./lib/turnstreamIngress.js";

const events = sized("INGRESS_EVENTS", 50_000, 5_000);
// Nine: on a shared 2-core VM one run can be 30 % off the next; a median of five moved the ratios by ±0.1 between processes minutes apart.
const runs = sized("INGRESS_RUNS", 9, 3);
const counted = sized("INGRESS_COUNTED_EVENTS", 10_000, 2_000);
const warmup = Math.min(events, 10_000);

type Name = "turnstream" | "turnstreamMetrics" | "baseline" | "rawCeiling";

interface Contender {
  readonly name: Name;
  readonly gateway: RemoteGateway;
  readonly subject: IngressSubject;
  readonly rates: number[];
  /** Per timed run: this process's CPU µs per event, and the share of the run's wall time spent in GC. */
  readonly cpuMicrosPerEvent: number[];
  readonly gcShares: number[];
}

async function contender(name: Name): Promise<Contender> {
  const gateway = await RemoteGateway.start();
  const subject =
    name === "turnstream" || name === "turnstreamMetrics"
      ? await startTurnstreamIngress({ gatewayUrl: gateway.url, gatewayToken: gateway.token, metrics: name === "turnstreamMetrics" })
      : name === "baseline"
        ? await startNaiveIngress(gateway.url, gateway.token)
        : await startRawCeiling(gateway.url, gateway.token);
  await gateway.connected();
  return { name, gateway, subject, rates: [], cpuMicrosPerEvent: [], gcShares: [] };
}

/** One untimed batch with the counter installed: what this process constructed and subscribed per event while it flowed. */
async function perEvent(c: Contender): Promise<ObservableCount> {
  const counter = installObservableCounter();
  try {
    await ingressRun(c.gateway, c.subject, counted, `${c.name}-counted`, 300_000);
    // The last events' settlement may finish a microtask or two after the count was reached.
    await sleep(20);
    const { observables, subscriptions } = counter.read();
    return { observables: round(observables / counted, 2), subscriptions: round(subscriptions / counted, 2) };
  } finally {
    counter.uninstall();
  }
}

// BENCH_ONLY=turnstream|turnstreamMetrics|baseline|rawCeiling runs one side, or a comma-separated few (for
// `node --cpu-prof`: two sides in one process share its JIT state, as in the full run); the JSON then lacks the others.
const only = process.env.BENCH_ONLY?.split(",");
const names = (["turnstream", "turnstreamMetrics", "baseline", "rawCeiling"] as const).filter((name) => only === undefined || only.includes(name));
const contenders: Contender[] = [];
for (const name of names) contenders.push(await contender(name));
for (const c of contenders) await ingressRun(c.gateway, c.subject, warmup, `${c.name}-warmup`, 120_000);
/** A run's order: every other run swaps turnstream and its metrics-on twin, so neither always goes first (ABBA). */
const orderOf = (run: number): Contender[] => {
  if (run % 2 === 0) return contenders;
  const swapped = [...contenders];
  const on = swapped.findIndex((c) => c.name === "turnstreamMetrics");
  const off = swapped.findIndex((c) => c.name === "turnstream");
  if (on >= 0 && off >= 0) [swapped[on], swapped[off]] = [swapped[off] as Contender, swapped[on] as Contender];
  return swapped;
};
for (let run = 0; run < runs; run++) {
  for (const c of orderOf(run)) {
    const cost = measureProcessCost();
    const started = performance.now();
    const rate = await ingressRun(c.gateway, c.subject, events, `${c.name}-${run}`, 300_000);
    const { cpuMicros, gcMs } = cost.stop();
    c.rates.push(rate);
    c.cpuMicrosPerEvent.push(cpuMicros / events);
    c.gcShares.push(gcMs / (performance.now() - started));
  }
}
/** `turnstream_events_total{outcome="turn"}` as the instrumented broker serves it (undefined when it did not run). */
async function metricsTurns(c: Contender | undefined): Promise<number | undefined> {
  const url = c?.subject.broker?.metricsUrl;
  if (url === undefined) return undefined;
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith('turnstream_events_total{outcome="turn"}'));
  return line === undefined ? undefined : Number(line.split(" ")[1]);
}

const counts = new Map<Name, ObservableCount>();
for (const c of contenders) if (c.name !== "rawCeiling" && c.name !== "turnstreamMetrics") counts.set(c.name, await perEvent(c));
// The instrumented broker must really have counted: every event it settled is in its /metrics.
const countedTurns = await metricsTurns(contenders.find((c) => c.name === "turnstreamMetrics"));
for (const c of contenders) {
  await c.subject.stop();
  await c.gateway.stop();
}
const summary = (name: Name) => {
  const c = contenders.find((candidate) => candidate.name === name);
  const rates = c?.rates ?? [];
  return {
    eventsPerSecond: Math.round(median(rates)),
    runs: rates.map((r) => Math.round(r)),
    cpuMicrosPerEvent: round(median(c?.cpuMicrosPerEvent ?? []), 1),
    gcShare: round(median(c?.gcShares ?? []), 3),
  };
};
const turnstream = summary("turnstream");
const baseline = summary("baseline");
const rawCeiling = summary("rawCeiling");
const turnstreamMetrics = summary("turnstreamMetrics");
/** Each metrics-on run over the metrics-off run beside it (just before or just after), so both saw the same moment of the machine. */
const pairedRatios = (contenders.find((c) => c.name === "turnstreamMetrics")?.rates ?? []).map(
  (rate, run) => rate / (contenders.find((c) => c.name === "turnstream")?.rates[run] ?? Number.NaN),
);
const ratio = (a: number, b: number) => round(a / b, 2);
note(`Observables / subscriptions per event: ${JSON.stringify(Object.fromEntries(counts))}`);
note("done");
emit({
  benchmark: "ingress-embedded",
  events,
  runs,
  sessions: SESSIONS,
  proactiveShare: 1 / PROACTIVE_EVERY,
  turnstream,
  baseline,
  rawCeiling,
  turnstreamMetrics,
  // [metrics] on ÷ off: the median of the paired runs' ratios.
  metricsRatio: pairedRatios.length === 0 ? undefined : round(median(pairedRatios), 3),
  metricsRatioRuns: pairedRatios.map((r) => round(r, 3)),
  metricsCountedTurns: countedTurns,
  ratio: ratio(turnstream.eventsPerSecond, baseline.eventsPerSecond),
  turnstreamToCeiling: ratio(turnstream.eventsPerSecond, rawCeiling.eventsPerSecond),
  baselineToCeiling: ratio(baseline.eventsPerSecond, rawCeiling.eventsPerSecond),
  countedEvents: counted,
  observablesPerEvent: counts.get("turnstream")?.observables,
  subscriptionsPerEvent: counts.get("turnstream")?.subscriptions,
  baselineObservablesPerEvent: counts.get("baseline")?.observables,
  // The process's peak RSS (all three contenders): what the generation-size policy costs in memory.
  maxRssMiB: round(process.resourceUsage().maxRSS / 1024, 1),
});
