// Ingress throughput through JetStream: the same frames and the same broker as ingress.ts, with
// `[bus] url` set — the edge appends every event to the turn stream on a private nats-server and
// the worker half (same process, role "all") consumes its 16 partitions, keeps the delivery ledger
// and triage state in NATS KV, and runs the instant agent. Timing starts after a warm-up has
// been settled, i.e. once the worker holds its partition leases and consumes.
import { emit, note, sized } from "./lib/benchEnv.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { ingressRun, PROACTIVE_EVERY, SESSIONS } from "./lib/ingressRuns.js";
import { probeJetStream, type JetStreamCeiling } from "./lib/jetstreamProbe.js";
import { natsServerAvailable, startNatsServer } from "./lib/natsServer.js";
import { median } from "./lib/stats.js";
import { startTurnstreamIngress } from "./lib/turnstreamIngress.js";

const events = sized("INGRESS_NATS_EVENTS", 5_000, 1_000);
const runs = sized("INGRESS_NATS_RUNS", 3, 1);

if (!natsServerAvailable()) {
  emit({ benchmark: "ingress-nats", skipped: "nats-server not found (set NATS_SERVER_BIN)" });
  process.exit(0);
}
const server = await startNatsServer();
const gateway = await RemoteGateway.start();
const subject = await startTurnstreamIngress({ gatewayUrl: gateway.url, gatewayToken: gateway.token, nats: { url: server.url, prefix: `bench${process.pid}` } });
await gateway.connected();
const rates: number[] = [];
let ceiling: JetStreamCeiling;
let ceilingQuiet: JetStreamCeiling;
let cpuMicrosPerEvent: number;
try {
  await ingressRun(gateway, subject, 500, "nats-warmup", 60_000);
  const cpuBefore = process.cpuUsage();
  for (let run = 0; run < runs; run++) rates.push(await ingressRun(gateway, subject, events, `nats-${run}`, 300_000));
  const cpu = process.cpuUsage(cpuBefore);
  // The broker's own CPU per event (edge and worker; gateway and server are other processes):
  // less sensitive than events/s to what else runs on the machine.
  cpuMicrosPerEvent = Math.round((cpu.user + cpu.system) / (events * runs));
  await subject.stop();
  await gateway.stop();
  ceiling = await probeJetStream(server.url, Math.min(events, 5_000), { noAsyncTraces: false });
  ceilingQuiet = await probeJetStream(server.url, Math.min(events, 5_000), { noAsyncTraces: true });
  note(`server alone: ${JSON.stringify(ceiling)}; without async traces: ${JSON.stringify(ceilingQuiet)}`);
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
  sessions: SESSIONS,
  proactiveShare: 1 / PROACTIVE_EVERY,
  partitions: 16,
  natsServer: server.version,
  turnstream: { eventsPerSecond: Math.round(median(rates)), runs: rates.map((r) => Math.round(r)), cpuMicrosPerEvent },
  serverCeiling: ceiling,
  serverCeilingNoAsyncTraces: ceilingQuiet,
});
