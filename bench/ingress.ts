// Ingress throughput on the embedded bus, turnstream side by side with the naive baseline
// (bench/baseline/) and the raw ceiling (bench/lib/rawCeiling.ts: frames decoded and validated,
// nothing else): gateway frames from a loopback WebSocket gateway in its own process, through
// parse → skip → trust → queue (msg-id dedupe) → per-session lane → triage (proactive
// events) → an instant in-process agent. Runs alternate between the three, so machine noise hits
// all alike. A fourth contender is turnstream with `[metrics]` on, for what the instruments cost
// (each of its runs beside a metrics-off run, which goes first every other run), and a fifth turnstream with
// `[pool] state_dir` set, whose embedded bus journals the turn queue and the delivery ledger to disk
// (issue 38: a synchronous write per append and per ack, and the ledger's per turn). Then one more batch per broker
// with the Observable counter installed (not timed: the counter's hooks slow rxjs down). Prints
// one JSON line: medians of the runs, the ratios, and Observables and subscriptions created per event.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

type Name = "turnstream" | "turnstreamMetrics" | "turnstreamJournal" | "baseline" | "rawCeiling";

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
  const stateDir = name === "turnstreamJournal" ? mkdtempSync(join(tmpdir(), "turnstream-bench-journal-")) : undefined;
  const subject =
    name === "turnstream" || name === "turnstreamMetrics" || name === "turnstreamJournal"
      ? await startTurnstreamIngress({
          gatewayUrl: gateway.url,
          gatewayToken: gateway.token,
          metrics: name === "turnstreamMetrics",
          ...(stateDir === undefined ? {} : { stateDir }),
        })
      : name === "baseline"
        ? await startNaiveIngress(gateway.url, gateway.token)
        : await startRawCeiling(gateway.url, gateway.token);
  await gateway.connected();
  if (stateDir !== undefined) {
    const stop = subject.stop;
    return { name, gateway, subject: { ...subject, stop: async () => (await stop(), rmSync(stateDir, { recursive: true, force: true })) }, rates: [], cpuMicrosPerEvent: [], gcShares: [] };
  }
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
const names = (["turnstream", "turnstreamMetrics", "turnstreamJournal", "baseline", "rawCeiling"] as const).filter((name) => only === undefined || only.includes(name));
const contenders: Contender[] = [];
for (const name of names) contenders.push(await contender(name));
for (const c of contenders) await ingressRun(c.gateway, c.subject, warmup, `${c.name}-warmup`, 120_000);
/** The turnstream variants, in the order an even run takes them; an odd run takes them reversed, so no twin always goes before or after plain turnstream (ABBA). */
const twins: readonly Name[] = ["turnstream", "turnstreamMetrics", "turnstreamJournal"];
const orderOf = (run: number): Contender[] => {
  if (run % 2 === 0) return contenders;
  const reversed = contenders.filter((c) => twins.includes(c.name)).reverse();
  return contenders.map((c) => (twins.includes(c.name) ? (reversed.shift() as Contender) : c));
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
for (const c of contenders) if (c.name === "turnstream" || c.name === "baseline") counts.set(c.name, await perEvent(c));
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
const turnstreamJournal = summary("turnstreamJournal");
/** Each of a twin's runs over plain turnstream's run of the same round (just before or just after it), so both saw the same moment of the machine. */
const pairedWith = (name: Name): number[] =>
  (contenders.find((c) => c.name === name)?.rates ?? []).map((rate, run) => rate / (contenders.find((c) => c.name === "turnstream")?.rates[run] ?? Number.NaN));
const pairedRatios = pairedWith("turnstreamMetrics");
const journalRatios = pairedWith("turnstreamJournal");
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
  turnstreamJournal,
  // the turn queue and ledger journaled ([pool] state_dir) ÷ in memory: the median of the paired runs' ratios.
  journalRatio: journalRatios.length === 0 ? undefined : round(median(journalRatios), 3),
  journalRatioRuns: journalRatios.map((r) => round(r, 3)),
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
