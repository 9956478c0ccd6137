// Bubble overhead: from the agent process writing an `openab_message` line to the reply frame
// arriving at the gateway, in sequential delivery with bubble_delay_ms 0. The stamp agent writes
// the monotonic clock into each bubble; the gateway (its own process, acking every send at once)
// records the clock at arrival — one clock for every process on the machine (CLOCK_MONOTONIC).
// Bubbles leave the agent `gap` ms apart, longer than a round trip, so each one measures the path
// and not a queue behind the previous ack. The first turn (agent start, partition leases on NATS)
// is a warm-up and not counted. Beside the latency it reports what the broker process (this one)
// allocates per bubble and how often it collected its young generation: the collections are
// what a bubble's tail waits behind, and the bytes behind them hardly move on a busy machine.
// Around the counted turns, the anchor: as many bare ack round trips to the same gateway process,
// `gap` ms apart (bench/lib/ackRoundTrip.ts), half just before the first counted turn and half just
// after the last, what the targets are ratios to. The counted turns run back to back, as before:
// the broker's costs and event-loop delay are counted over them and not over the round trips (an
// event-loop delay monitor disabled and enabled again counts the pause as one long delay).
import { monitorEventLoopDelay } from "node:perf_hooks";
import { firstValueFrom, last, take, timeout } from "rxjs";
import { devEvent } from "../src/devgateway/devGateway.js";
import { connectAckRoundTrip } from "./lib/ackRoundTrip.js";
import { startAgentBroker } from "./lib/agentBroker.js";
import { elapsedMs, emit, note, sized } from "./lib/benchEnv.js";
import { measureHeapAllocation, type HeapAllocation } from "./lib/heapAllocation.js";
import { natsServerAvailable, startNatsServer, type BenchNatsServer } from "./lib/natsServer.js";
import { measureProcessCost, type ProcessCost } from "./lib/processCost.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { distribution, round } from "./lib/stats.js";

const turns = sized("BUBBLE_TURNS", 20, 4);
const perTurn = sized("BUBBLE_PER_TURN", 50, 25);
const gapMs = sized("BUBBLE_GAP_MS", 5, 5);

interface Measured {
  readonly latencies: number[];
  /** The bare ack round trips just before and just after the counted turns (ms). */
  readonly roundTrips: number[];
  /** The broker process's event-loop delay while the counted turns ran (ms): a stall here delays every bubble in flight. */
  readonly loopDelay: { readonly p50: number; readonly p99: number; readonly max: number };
  /** The broker process while the counted turns ran (the harness's handling of each reply included). */
  readonly broker: {
    readonly bytesPerBubble: number;
    readonly scavengesPer1000Bubbles: number;
    readonly scavengeMaxMs: number;
    readonly markCompacts: number;
    readonly cpuMicrosPerBubble: number;
  };
}

async function measure(bus: "embedded" | "nats", server?: BenchNatsServer): Promise<Measured> {
  const gateway = await RemoteGateway.start();
  // Every reply of this benchmark is a stamped bubble (checked below).
  const arrived = () => gateway.replies.length;
  const subject = await startAgentBroker({
    gatewayUrl: gateway.url,
    gatewayToken: gateway.token,
    delivery: { mode: "sequential", bubble_delay_ms: 0, max_bubbles: perTurn },
    ...(server === undefined ? {} : { nats: { url: server.url, prefix: `bubble${process.pid}` } }),
  });
  let counted: number[] = [];
  const roundTrips: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let costs: { readonly heap: HeapAllocation; readonly process: ProcessCost } | undefined;
  try {
    await gateway.connected();
    // Connected after the broker, so that `connected()` above waited for the broker's socket.
    const probe = await connectAckRoundTrip(gateway.url, gateway.token);
    try {
      const half = Math.ceil((turns * perTurn) / 2);
      let counting: { readonly heap: { stop(): HeapAllocation }; readonly process: { stop(): ProcessCost } } | undefined;
      // Every turn, the warm-up included, settled in the broker (its last ack, the agent's answer) before the round trips after them.
      const allSettled = firstValueFrom(subject.broker.settledTurns.pipe(take(turns + 1), last(), timeout(60_000)));
      for (let turn = 0; turn <= turns; turn++) {
        if (turn === 1) {
          await probe.measure(10, gapMs); // untimed: the probe's own code warm
          roundTrips.push(...(await probe.measure(half, gapMs)));
          // Start-up's garbage (modules, the first agent's session) is collected before counting, when
          // the process runs with --expose-gc (as `npm run bench` runs it): left in the young
          // generation, it made the first counted scavenges copy megabytes (11–15 ms pauses, twice in
          // the first seconds, then 2–3 ms ones), a start-up cost and not a bubble's.
          globalThis.gc?.();
          loop.enable();
          counting = { heap: measureHeapAllocation(), process: measureProcessCost() };
        }
        const expected = arrived() + perTurn;
        gateway.broadcast(devEvent(`bubbles ${perTurn} ${gapMs}`, { eventId: `bubble-${bus}-${turn}` }));
        await gateway.replyCount(expected, 30_000);
        if (turn === turns) {
          costs = counting === undefined ? undefined : { heap: counting.heap.stop(), process: counting.process.stop() };
          loop.disable();
        }
      }
      await allSettled;
      roundTrips.push(...(await probe.measure(turns * perTurn - half, gapMs)));
    } finally {
      await probe.close();
    }
    const unstamped = gateway.replies.find((reply) => !reply.text.startsWith("t="));
    if (unstamped !== undefined) throw new Error(`a reply that is not a stamped bubble: ${JSON.stringify(unstamped.text.slice(0, 80))}`);
    counted = gateway.replies
      .slice(perTurn) // the warm-up turn
      .map((reply) => elapsedMs(BigInt(reply.text.slice(2)), reply.atNs));
  } finally {
    loop.disable();
    await subject.stop();
    await gateway.stop();
  }
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const loopDelay = { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) };
  const perBubble = (total: number) => total / counted.length;
  const broker = {
    bytesPerBubble: round(perBubble(costs?.heap.bytes ?? Number.NaN)),
    scavengesPer1000Bubbles: round(perBubble(costs?.heap.scavenges ?? Number.NaN) * 1000, 1),
    scavengeMaxMs: round(costs?.heap.scavengeMaxMs ?? Number.NaN, 2),
    markCompacts: costs?.heap.markCompacts ?? Number.NaN,
    cpuMicrosPerBubble: round(perBubble(costs?.process.cpuMicros ?? Number.NaN)),
  };
  note(`${bus}: ${counted.length} bubbles; event-loop delay ${JSON.stringify(loopDelay)} ms; broker ${JSON.stringify(broker)}; bare ack round trip ${JSON.stringify(distribution(roundTrips))} ms`);
  return { latencies: counted, roundTrips, loopDelay, broker };
}

const summary = ({ latencies, roundTrips, loopDelay, broker }: Measured) => ({ ...distribution(latencies), ackRoundTrip: distribution(roundTrips), loopDelay, broker });

// BENCH_ONLY=embedded|nats measures one bus (for `node --cpu-prof`).
const only = process.env.BENCH_ONLY;
const embedded = only === "nats" ? { skipped: "BENCH_ONLY=nats" } : summary(await measure("embedded"));
let nats: ReturnType<typeof summary> | { skipped: string };
if (only === "embedded") nats = { skipped: "BENCH_ONLY=embedded" };
else if (natsServerAvailable()) {
  const server = await startNatsServer();
  try {
    nats = summary(await measure("nats", server));
  } finally {
    await server.stop();
  }
} else nats = { skipped: "nats-server not found" };
emit({ benchmark: "bubble-overhead", unit: "ms", turns, bubblesPerTurn: perTurn, gapMs, embedded, nats });
