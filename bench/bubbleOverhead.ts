// Bubble overhead: from the agent process writing an `openab_message` line to the reply frame
// arriving at the gateway, in sequential delivery with bubble_delay_ms 0. The stamp agent writes
// the monotonic clock into each bubble; the gateway (its own process, acking every send at once)
// records the clock at arrival — one clock for every process on the machine (CLOCK_MONOTONIC).
// Bubbles leave the agent `gap` ms apart, longer than a round trip, so each one measures the path
// and not a queue behind the previous ack. The first turn (agent start, partition leases on NATS)
// is a warm-up and not counted.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { devEvent } from "../src/devgateway/devGateway.js";
import { startAgentBroker } from "./lib/agentBroker.js";
import { elapsedMs, emit, note, sized } from "./lib/benchEnv.js";
import { natsServerAvailable, startNatsServer, type BenchNatsServer } from "./lib/natsServer.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { distribution } from "./lib/stats.js";

const turns = sized("BUBBLE_TURNS", 20, 4);
const perTurn = sized("BUBBLE_PER_TURN", 50, 25);
const gapMs = sized("BUBBLE_GAP_MS", 5, 5);

interface Measured {
  readonly latencies: number[];
  /** The broker process's event-loop delay while the counted turns ran (ms): a stall here delays every bubble in flight. */
  readonly loopDelay: { readonly p50: number; readonly p99: number; readonly max: number };
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
  const loop = monitorEventLoopDelay({ resolution: 1 });
  try {
    await gateway.connected();
    for (let turn = 0; turn <= turns; turn++) {
      if (turn === 1) loop.enable();
      const expected = arrived() + perTurn;
      gateway.broadcast(devEvent(`bubbles ${perTurn} ${gapMs}`, { eventId: `bubble-${bus}-${turn}` }));
      await gateway.replyCount(expected, 30_000);
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
  note(`${bus}: ${counted.length} bubbles; event-loop delay ${JSON.stringify(loopDelay)} ms`);
  return { latencies: counted, loopDelay };
}

const summary = ({ latencies, loopDelay }: Measured) => ({ ...distribution(latencies), loopDelay });

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
