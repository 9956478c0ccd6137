// Soak: the broker under a steady load for minutes, its heap read every `sample` seconds — does it
// plateau? Role "all" on the embedded bus, its real gateway connector talking to a gateway in its
// own process, and one real agent process (the stamp agent's `echo` scenario) per conversation
// from the session pool, `[delivery] mode = "text"`. The gateway process sends events at a steady
// rate round-robin over the conversations (half DMs, half groups that @mention the bot), matches
// every reply to its event and keeps the latencies; this process — the broker's — only reads its
// own heap. Every reading is heapUsed after forced full collections (`node --expose-gc`), so
// garbage not yet collected is not counted; RSS is read at the same moment.
//
// The broker keeps bounded tables that fill at first and then hold: the embedded bus's duplicate
// window (2 minutes of event ids, ~160 B each), inbound dedupe (`dedupe_max`, 5,000 keys, ~225 B
// each) and the edge's answers by send id (10,000, one per reply sent, ~170 B each) — some 4 MiB in
// all. At the default 50 events/s inbound dedupe is full after 100 s, the duplicate window after
// 120 s, the answers after ~200 s: the plateau verdict is read over the last third of the run, when
// all are full; the second half (whose first 50 s still fill the answers) is reported beside it.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { writeHeapSnapshot } from "node:v8";
import { startAgentBroker } from "./lib/agentBroker.js";
import { emit, note, sized, sleep } from "./lib/benchEnv.js";
import { ingressGatewayConfig, type FrameMix } from "./lib/gatewayFrames.js";
import type { SteadyResult } from "./lib/gatewayProtocol.js";
import { cpuSnapshot } from "./lib/machineShare.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { round } from "./lib/stats.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with node --expose-gc");

const seconds = sized("SOAK_SECS", 300, 20);
const rate = sized("SOAK_RATE", 50, 50);
const conversations = sized("SOAK_CONVERSATIONS", 100, 20);
const sampleSecs = sized("SOAK_SAMPLE_SECS", 10, 2);
/** The heap the growth is measured from: the reading at one minute (half the run if shorter). */
const settledAtSecs = Math.min(60, Math.floor(seconds / 2 / sampleSecs) * sampleSecs);
const MiB = 2 ** 20;
/** Diagnostic: `BENCH_SOAK_SNAPSHOTS=60,240` writes a heap snapshot at those sample times (to compare what grew). */
const snapshotAt = new Set((process.env.BENCH_SOAK_SNAPSHOTS ?? "").split(",").filter(Boolean).map(Number));

interface Sample {
  /** Seconds since the steady feed started. */
  readonly t: number;
  readonly heapUsed: number;
  readonly rss: number;
  readonly sent: number;
  readonly answered: number;
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

/** Least-squares slope of y over x. */
function slope(points: readonly (readonly [number, number])[]): number {
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
  const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return variance === 0 ? 0 : covariance / variance;
}

const mix: FrameMix = { sessions: conversations, proactiveEvery: 0, runTag: `soak${process.pid}`, textPrefix: "echo " };
const gateway = await RemoteGateway.start();
const subject = await startAgentBroker({
  gatewayUrl: gateway.url,
  gatewayToken: gateway.token,
  gateway: ingressGatewayConfig(gateway.url, gateway.token),
  delivery: { mode: "text" },
  maxSessions: conversations,
});
const samples: Sample[] = [];
const childrenBefore = cpuSnapshot()?.children;
let brokerCpuSeconds = Number.NaN;
let feedSeconds = Number.NaN;
const loop = monitorEventLoopDelay({ resolution: 1 });
let feed: SteadyResult;
try {
  await gateway.connected();
  // Warm-up: one event per conversation starts its agent process (not counted).
  const warm = await gateway.steady({ from: 0, count: conversations, ratePerSecond: 50, mix, drainMs: 60_000 });
  if (warm.answered !== conversations) throw new Error(`warm-up: ${warm.answered} of ${conversations} answered`);
  note(`warm-up: ${conversations} conversations answered; ${rate} events/s for ${seconds} s, heap every ${sampleSecs} s`);

  const count = rate * seconds;
  const startedMs = performance.now();
  const cpuBefore = process.cpuUsage();
  const read = (t: number) => {
    const heap = heapUsed();
    // Before the feed starts the progress is the warm-up's.
    const { sent, answered } = t === 0 ? { sent: 0, answered: 0 } : gateway.steadyProgress;
    samples.push({ t, heapUsed: heap, rss: process.memoryUsage().rss, sent, answered });
    if (snapshotAt.has(t)) note(`heap snapshot ${writeHeapSnapshot(`soak-${process.pid}-${t}s.heapsnapshot`)}`);
    note(`t=${t}s heap ${(heap / MiB).toFixed(2)} MiB, rss ${(process.memoryUsage().rss / MiB).toFixed(0)} MiB, sent ${sent}, answered ${answered}`);
  };
  read(0);
  loop.enable();
  const sampling = (async () => {
    for (let t = sampleSecs; t <= seconds; t += sampleSecs) {
      await sleep(Math.max(0, startedMs + t * 1000 - performance.now()));
      read(t);
    }
  })();
  feed = await gateway.steady({ from: conversations, count, ratePerSecond: rate, mix, drainMs: 30_000 });
  await sampling;
  loop.disable();
  const cpu = process.cpuUsage(cpuBefore);
  brokerCpuSeconds = (cpu.user + cpu.system) / 1e6;
  feedSeconds = (performance.now() - startedMs) / 1000;
} finally {
  await subject.stop();
  await gateway.stop();
}

// The gateway's and the agents' processes, reaped by now (clock ticks, 100 a second on Linux), warm-up included.
const childrenAfter = cpuSnapshot()?.children;
const childrenCpuSeconds = childrenBefore === undefined || childrenAfter === undefined ? undefined : (childrenAfter - childrenBefore) / 100;
const half = samples.filter((s) => s.t >= seconds / 2);
const slopePerMin = slope(half.map((s) => [s.t / 60, s.heapUsed]));
const lastThird = samples.filter((s) => s.t >= (seconds * 2) / 3);
const lastThirdPerMin = slope(lastThird.map((s) => [s.t / 60, s.heapUsed]));
const settled = samples.find((s) => s.t === settledAtSecs)?.heapUsed ?? Number.NaN;
const peakAfter = Math.max(...samples.filter((s) => s.t >= settledAtSecs).map((s) => s.heapUsed));
const ms = (ns: number) => round(ns / 1e6, 2);
const { latencyMs, ...events } = feed;
note(`last third: ${round(lastThirdPerMin / 1024, 1)} KiB/min; second half: ${round(slopePerMin / 1024, 1)} KiB/min; peak − heap at ${settledAtSecs} s: ${round((peakAfter - settled) / MiB, 2)} MiB; lost ${events.sent - events.answered}`);
emit({
  benchmark: "soak",
  unit: "bytes",
  seconds,
  ratePerSecond: rate,
  conversations,
  sampleSecs,
  events: { ...events, lost: events.sent - events.answered },
  latencyMs,
  cpu: {
    brokerCoreShare: round(brokerCpuSeconds / feedSeconds, 3),
    ...(childrenCpuSeconds === undefined ? {} : { gatewayAndAgentsCpuSeconds: round(childrenCpuSeconds, 1) }),
  },
  loopDelayMs: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
  plateau: {
    secondHalfFromSecs: half[0]?.t ?? seconds,
    secondHalfKiBPerMin: round(slopePerMin / 1024, 1),
    secondHalfBytesPerEvent: round(slopePerMin / (rate * 60), 1),
    lastThirdFromSecs: lastThird[0]?.t ?? seconds,
    lastThirdKiBPerMin: round(lastThirdPerMin / 1024, 1),
    settledAtSecs,
    growthAfterSettledMiB: round((peakAfter - settled) / MiB, 2),
    firstMiB: round((samples[0]?.heapUsed ?? Number.NaN) / MiB, 2),
    lastMiB: round((samples.at(-1)?.heapUsed ?? Number.NaN) / MiB, 2),
  },
  samples: samples.map((s) => ({ t: s.t, heapMiB: round(s.heapUsed / MiB, 2), rssMiB: round(s.rss / MiB, 1), sent: s.sent, answered: s.answered })),
});
