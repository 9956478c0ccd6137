// Scale-out on one machine: NATS mode with 1, 2 and 4 worker processes (bench/scaleWorker.ts:
// connectBroker, role "worker", the ingress benchmarks' triage stage and instant agent — an ACP
// agent process per session would measure the agents, not the broker) behind one edge (this
// process: role "edge", connected to the gateway gateway). Two numbers per worker count:
//
// - end to end: gateway frames → edge → JetStream → workers → settled, as in ingressNats.ts;
// - drain: the workers' own rate — the gate holds turns back while the edge fills the stream,
//   then opens, and the stream is drained (gate opened → last event settled).
//
// Each worker count gets a fresh nats-server. Timing starts once the partition leases are split
// evenly over the workers and a warm-up batch settled (every partition is being consumed). Before
// each run and after the last, the anchor (bench/lib/appendAnchor.ts) on the same server: its own
// pipelined appends/s at that moment, what the drain target is a ratio to.
import { Kvm } from "@nats-io/kv";
import { jetstreamManager } from "@nats-io/jetstream";
import { readLeaseTable } from "../src/scale/leaseBucket.js";
import { NatsBus, subjects } from "../src/index.js";
import { startAppendAnchor, type AppendAnchor, type AppendAnchorResult } from "./lib/appendAnchor.js";
import { elapsedMs, emit, note, nowNs, sized, sleep } from "./lib/benchEnv.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { PROACTIVE_EVERY, SESSIONS } from "./lib/ingressRuns.js";
import { natsServerAvailable, startNatsServer } from "./lib/natsServer.js";
import { ScaleWorkers } from "./lib/scaleWorkers.js";
import { median } from "./lib/stats.js";
import { startTurnstreamIngress } from "./lib/turnstreamIngress.js";

const workerCounts = [1, 2, 4];
const events = sized("SCALE_EVENTS", 3_000, 1_000);
const runs = sized("SCALE_RUNS", 3, 1);
const partitions = 16;

interface ScalePoint {
  readonly workers: number;
  readonly endToEnd: { readonly eventsPerSecond: number; readonly runs: number[] };
  readonly drain: { readonly eventsPerSecond: number; readonly runs: number[] };
  /** nats-server's own pipelined appends/s between the runs, on this point's server. */
  readonly anchor: AppendAnchorResult;
}

/** Resolves once the leases are split evenly over `workers` and stayed so for three lease ticks (lease_ttl 3 s: a tick a second). */
async function leasesSettled(bus: NatsBus, prefix: string, workers: number): Promise<boolean> {
  const kv = await new Kvm(bus.connection).open(subjects(prefix).buckets.leases);
  const deadline = Date.now() + 90_000;
  let stableSince = Date.now();
  let last = "";
  while (Date.now() < deadline) {
    const table = await readLeaseTable(kv, partitions);
    const perWorker = new Map<string, number>();
    for (const { workerId } of table.holders.values()) perWorker.set(workerId, (perWorker.get(workerId) ?? 0) + 1);
    const shares = [...perWorker.values()];
    const even = table.holders.size === partitions && perWorker.size === workers && Math.max(...shares) - Math.min(...shares) <= 1;
    const snapshot = even ? JSON.stringify([...table.holders].map(([p, lease]) => [p, lease.workerId]).sort()) : "";
    if (snapshot !== last) stableSince = Date.now();
    last = snapshot;
    if (last !== "" && Date.now() - stableSince > 3_000) return true;
    await sleep(250);
  }
  note(`leases: ${last === "" ? "not even" : "still moving"}`);
  return false;
}

async function point(workerCount: number): Promise<ScalePoint> {
  const server = await startNatsServer();
  const prefix = `scale${workerCount}`;
  const gateway = await RemoteGateway.start();
  const edge = await startTurnstreamIngress({ gatewayUrl: gateway.url, gatewayToken: gateway.token, nats: { url: server.url, prefix }, role: "edge" });
  const workers = await ScaleWorkers.start(workerCount, server.url, prefix);
  const bus = edge.broker?.bus;
  if (!(bus instanceof NatsBus)) throw new Error("the edge is not on NATS");
  const jsm = await jetstreamManager(bus.connection);
  const stored = async () => (await jsm.streams.info(subjects(prefix).stream)).state.messages;
  let next = 0;
  const feed = (count: number, tag: string) => {
    const from = next;
    next += count;
    return gateway.feed(from, count, { sessions: SESSIONS, proactiveEvery: PROACTIVE_EVERY, runTag: `${prefix}-${tag}` });
  };
  const settle = async (target: number, what: string) => {
    await workers.reach(target, 300_000).catch((err: unknown) => Promise.reject(new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`)));
    return workers.lastSettledNs; // the report that completed the count carries its worker's last settle
  };
  const endToEnd: number[] = [];
  const drain: number[] = [];
  let appends: AppendAnchor | undefined;
  try {
    await gateway.connected();
    if (!(await leasesSettled(bus, prefix, workerCount))) throw new Error(`leases did not settle over ${workerCount} workers`);
    await sleep(5_000); // the takeover delay of the last partitions moved
    await feed(SESSIONS * 2, "warmup");
    await settle(SESSIONS * 2, "warm-up");
    // Its own stream on the same server; the workers consume only the turn stream's partitions.
    appends = await startAppendAnchor(server.url);
    const anchorPass = async (anchor: AppendAnchor) => note(`${workerCount} workers, anchor: ${await anchor.measure()} pipelined appends/s`);
    for (let run = 0; run < runs; run++) {
      await anchorPass(appends);
      const target = workers.settled + events;
      const { firstSentNs } = await feed(events, `e2e${run}`);
      const rate = events / (elapsedMs(firstSentNs, await settle(target, "end to end")) / 1000);
      endToEnd.push(rate);
      note(`${workerCount} workers, end to end: ${Math.round(rate)} events/s`);

      workers.gate(false);
      const before = workers.settled;
      const drained = before + events;
      await feed(events, `drain${run}`);
      // Queued = still in the stream (held behind the gate) or already settled (triage suppressions pass no gate).
      if (!(await waitQueued(async () => (await stored()) + workers.settled - before, events))) throw new Error("the edge did not queue the drain batch");
      const opened = nowNs();
      workers.gate(true);
      const drainRate = events / (elapsedMs(opened, await settle(drained, "drain")) / 1000);
      drain.push(drainRate);
      note(`${workerCount} workers, drain: ${Math.round(drainRate)} events/s`);
    }
    await anchorPass(appends);
  } finally {
    await appends?.close();
    await workers.stop();
    await edge.stop();
    await gateway.stop();
    await server.stop();
  }
  const summary = (rates: number[]) => ({ eventsPerSecond: Math.round(median(rates)), runs: rates.map((r) => Math.round(r)) });
  return { workers: workerCount, endToEnd: summary(endToEnd), drain: summary(drain), anchor: appends.result() };
}

/** Polls until `queued()` reaches `count`. */
async function waitQueued(queued: () => Promise<number>, count: number): Promise<boolean> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await queued()) >= count) return true;
    await sleep(20);
  }
  return false;
}

if (!natsServerAvailable()) {
  emit({ benchmark: "scale", skipped: "nats-server not found (set NATS_SERVER_BIN)" });
  process.exit(0);
}
const points: ScalePoint[] = [];
for (const count of workerCounts) points.push(await point(count));
emit({ benchmark: "scale", events, runs, partitions, sessions: SESSIONS, points });
