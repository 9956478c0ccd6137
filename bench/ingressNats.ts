// Ingress throughput through JetStream: the same frames and the same broker as ingress.ts, with
// `[bus] url` set — the edge appends every event to the turn stream on a private nats-server and
// the worker half (same process, role "all") consumes its 16 partitions, keeps the delivery ledger
// and triage state in NATS KV, and runs the instant agent. Timing starts after a warm-up run has
// been settled, i.e. once the worker holds its partition leases, consumes, and the path is warm.
// Before each timed run and after the last, the anchor (bench/lib/appendAnchor.ts): nats-server's
// own pipelined appends/s on this machine at that moment, what the JetStream target is a ratio to.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { emit, note, sized } from "./lib/benchEnv.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { ingressRun, PROACTIVE_EVERY, SESSIONS } from "./lib/ingressRuns.js";
import { startAppendAnchor, type AppendAnchorResult } from "./lib/appendAnchor.js";
import { probeJetStream, type JetStreamCeiling } from "./lib/jetstreamProbe.js";
import { natsServerAvailable, startNatsServer } from "./lib/natsServer.js";
import { median } from "./lib/stats.js";
import { startTurnstreamIngress } from "./lib/turnstreamIngress.js";

const events = sized("INGRESS_NATS_EVENTS", 5_000, 1_000);
const runs = sized("INGRESS_NATS_RUNS", 3, 1);
// After one warm-up run of 5,000 the first timed run still cost the broker ~1.5× the CPU per event
// of the later ones (94 against 57–68 µs, JIT tiers and heap growth); from ~20,000 events on, runs level off.
const warmupRuns = sized("INGRESS_NATS_WARMUP_RUNS", 4, 1);
// BENCH_ONLY=turnstream leaves out the server probes after the runs (for `node --cpu-prof`).
const probes = process.env.BENCH_ONLY !== "turnstream";

if (!natsServerAvailable()) {
  emit({ benchmark: "ingress-nats", skipped: "nats-server not found (set NATS_SERVER_BIN)" });
  process.exit(0);
}
// The config's default. At the scale benchmark's 3 s a lease tick times out after 1 s, and a saturated
// event loop lags that long (eventLoopDelayMs below): the worker lost and re-took all its leases, and
// the messages it handed back waited out the 30 s ack wait on nats-server 2.9 (runs at ~160 events/s).
const LEASE_TTL_SECS = 10;
const server = await startNatsServer();
const gateway = await RemoteGateway.start();
const subject = await startTurnstreamIngress({ gatewayUrl: gateway.url, gatewayToken: gateway.token, nats: { url: server.url, prefix: `bench${process.pid}`, leaseTtlSecs: LEASE_TTL_SECS } });
await gateway.connected();
const rates: number[] = [];
let ceiling: JetStreamCeiling | { skipped: string } = { skipped: "BENCH_ONLY=turnstream" };
let ceilingQuiet: JetStreamCeiling | { skipped: string } = ceiling;
let anchor: AppendAnchorResult;
let cpuMicrosPerEvent: number;
let serverCpuMicrosPerEvent: number | undefined;
// How late the broker's event loop ran while events flowed: a lease tick waits behind it (1 s timeout at lease_ttl_secs 3).
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
try {
  // Full-size warm-up runs, as ingress.ts warms up (see warmupRuns): the same bursts as the timed runs.
  for (let run = 0; run < warmupRuns; run++) await ingressRun(gateway, subject, events, `nats-warmup-${run}`, 120_000);
  const appends = await startAppendAnchor(server.url);
  // CPU is counted over the timed runs only, not over the anchor's passes between them; the loop
  // delay from the first run to the last (disabled and enabled again, the monitor would count the
  // pause as one long delay), the short passes between them included.
  let cpuMicros = 0;
  let serverCpuMicros: number | undefined = 0;
  try {
    for (let run = 0; run < runs; run++) {
      note(`anchor: ${await appends.measure()} pipelined appends/s`);
      const cpuBefore = process.cpuUsage();
      const serverCpuBefore = server.cpuMicros();
      if (run === 0) loopDelay.enable();
      rates.push(await ingressRun(gateway, subject, events, `nats-${run}`, 300_000));
      const cpu = process.cpuUsage(cpuBefore);
      cpuMicros += cpu.user + cpu.system;
      const serverCpuAfter = server.cpuMicros();
      serverCpuMicros = serverCpuMicros === undefined || serverCpuBefore === undefined || serverCpuAfter === undefined ? undefined : serverCpuMicros + serverCpuAfter - serverCpuBefore;
    }
    loopDelay.disable();
    note(`anchor: ${await appends.measure()} pipelined appends/s`);
    anchor = appends.result();
  } finally {
    await appends.close();
  }
  // The broker's own CPU per event (edge and worker; gateway and server are other processes):
  // less sensitive than events/s to what else runs on the machine.
  cpuMicrosPerEvent = Math.round(cpuMicros / (events * runs));
  // nats-server's share: on a 2-core machine broker + server + gateway split the cores, so both bound events/s.
  serverCpuMicrosPerEvent = serverCpuMicros === undefined ? undefined : Math.round(serverCpuMicros / (events * runs));
  await subject.stop();
  await gateway.stop();
  if (probes) {
    ceiling = await probeJetStream(server.url, Math.min(events, 5_000), { noAsyncTraces: false });
    ceilingQuiet = await probeJetStream(server.url, Math.min(events, 5_000), { noAsyncTraces: true });
    note(`server alone: ${JSON.stringify(ceiling)}; without async traces: ${JSON.stringify(ceilingQuiet)}`);
  }
} finally {
  await subject.stop();
  await gateway.stop();
  await server.stop();
}
note("done");
emit({
  benchmark: "ingress-nats",
  events,
  runs,
  warmupRuns,
  sessions: SESSIONS,
  proactiveShare: 1 / PROACTIVE_EVERY,
  partitions: 16,
  natsServer: server.version,
  turnstream: { eventsPerSecond: Math.round(median(rates)), runs: rates.map((r) => Math.round(r)), cpuMicrosPerEvent, serverCpuMicrosPerEvent, eventLoopDelayMs: { p99: Math.round(loopDelay.percentile(99) / 1e6), max: Math.round(loopDelay.max / 1e6) } },
  anchor,
  serverCeiling: ceiling,
  serverCeilingNoAsyncTraces: ceilingQuiet,
});
