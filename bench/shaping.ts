// Shaping cost: what `[rate_limits]` costs a send when no limit binds. The same bubble traffic —
// several conversations at once, each turn a burst of sequential bubbles the stamp agent writes
// back to back, every send acked at once by the gateway process — runs with shaping off
// (`enabled = false`) and on with limits far above the traffic, so every send goes through its
// conversation's lane and asks the per-bot bucket (on NATS: the shared KV bucket) and never
// waits. Runs alternate off/on/on/off in one process after an untimed run of each; each run is a
// fresh broker (agents, and on NATS a fresh prefix) with one untimed warm-up round. Reported: bubbles per second and the broker
// process's CPU per bubble, and on over off for each.
import { devEvent } from "../src/devgateway/devGateway.js";
import { startAgentBroker } from "./lib/agentBroker.js";
import { emit, note, sized } from "./lib/benchEnv.js";
import { natsServerAvailable, startNatsServer, type BenchNatsServer } from "./lib/natsServer.js";
import { measureProcessCost } from "./lib/processCost.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { median, round } from "./lib/stats.js";

const conversations = sized("SHAPING_CONVERSATIONS", 8, 4);
const perTurn = sized("SHAPING_PER_TURN", 40, 20);
const rounds = sized("SHAPING_ROUNDS", 5, 2);
const pairs = sized("SHAPING_PAIRS", 4, 1);

/** Far above the traffic: consulted on every send, never binding. */
const unbound = { messages: 1_000_000, per_secs: 1 };
const limits = {
  off: { telegram: { enabled: false } },
  on: { telegram: { per_conversation: unbound, per_group: unbound, per_bot: unbound } },
} as const;
type Side = keyof typeof limits;

interface Run {
  readonly bubblesPerSec: number;
  readonly cpuMicrosPerBubble: number;
}

let runs = 0;

async function run(side: Side, gateway: RemoteGateway, server: BenchNatsServer | undefined): Promise<Run> {
  runs += 1;
  const subject = await startAgentBroker({
    gatewayUrl: gateway.url,
    gatewayToken: gateway.token,
    delivery: { mode: "sequential", bubble_delay_ms: 0, max_bubbles: perTurn },
    rateLimits: limits[side],
    ...(server === undefined ? {} : { nats: { url: server.url, prefix: `shaping${process.pid}r${runs}` } }),
  });
  try {
    await gateway.connected();
    const round = async (n: number) => {
      const expected = gateway.replies.length + conversations * perTurn;
      for (let c = 0; c < conversations; c++) {
        gateway.broadcast({ ...devEvent(`bubbles ${perTurn} 0`, { eventId: `shaping-${runs}-${n}-${c}` }), channel: { id: `shaping-${c}`, type: "dm" } });
      }
      await gateway.replyCount(expected, 60_000);
    };
    await round(0);
    const cost = measureProcessCost();
    const started = performance.now();
    for (let n = 1; n <= rounds; n++) await round(n);
    const seconds = (performance.now() - started) / 1000;
    const bubbles = rounds * conversations * perTurn;
    return { bubblesPerSec: bubbles / seconds, cpuMicrosPerBubble: cost.stop().cpuMicros / bubbles };
  } finally {
    await subject.stop();
  }
}

async function compare(bus: "embedded" | "nats", server?: BenchNatsServer) {
  const gateway = await RemoteGateway.start();
  const measured: Record<Side, Run[]> = { off: [], on: [] };
  try {
    // Untimed, one each side: the first runs in a process are slower whichever side they are (JIT).
    for (const side of ["off", "on"] as const) await run(side, gateway, server);
    for (let pair = 0; pair < pairs; pair++) {
      for (const side of ["off", "on", "on", "off"] as const) measured[side].push(await run(side, gateway, server));
    }
  } finally {
    await gateway.stop();
  }
  const summary = (side: Side) => ({
    bubblesPerSec: round(median(measured[side].map((r) => r.bubblesPerSec))),
    cpuMicrosPerBubble: round(median(measured[side].map((r) => r.cpuMicrosPerBubble)), 1),
    runs: measured[side].map((r) => round(r.bubblesPerSec)),
  });
  const off = summary("off");
  const on = summary("on");
  const result = {
    off,
    on,
    /** Throughput with shaping over without: ≥ 0.95 is the target. */
    throughputRatio: round(on.bubblesPerSec / off.bubblesPerSec, 3),
    cpuRatio: round(on.cpuMicrosPerBubble / off.cpuMicrosPerBubble, 3),
  };
  note(`${bus}: ${JSON.stringify(result)}`);
  return result;
}

const embedded = await compare("embedded");
let nats: Awaited<ReturnType<typeof compare>> | { skipped: string };
if (natsServerAvailable()) {
  const server = await startNatsServer();
  try {
    nats = await compare("nats", server);
  } finally {
    await server.stop();
  }
} else nats = { skipped: "nats-server not found" };
emit({ benchmark: "shaping", unit: "bubbles/s", conversations, bubblesPerTurn: perTurn, rounds, pairs, embedded, nats });
