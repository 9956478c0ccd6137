// Shaping cost: what `[rate_limits]` costs a send when no limit binds. One broker, the same bubble
// traffic — several conversations at once, each turn a burst of sequential bubbles the stamp agent
// writes back to back, every send acked at once by the gateway process — on two platforms: "off"
// has no limits (what `enabled = false` gives a platform), "on" has limits far above the traffic,
// so every send goes through its conversation's buckets and asks the per-bot bucket (on NATS: the
// worker's local part, then the shared KV pool) and never waits. Rounds alternate off/on/on/off in
// the one running broker after untimed warm-up rounds of each, so both sides share its JIT and the
// machine's moment: a fresh broker per side varied ±15 % from run to run, more than the cost being
// measured. The two sides' sessions are different agent processes, so beside it the same is run
// with both sides on one platform (the control): what the method's noise alone comes to. Reported:
// bubbles per second and the process's CPU per bubble over each side's rounds, on over off, for
// each; embedded and NATS.
import { devEvent } from "../src/devgateway/devGateway.js";
import { startAgentBroker } from "./lib/agentBroker.js";
import { emit, note, sized } from "./lib/benchEnv.js";
import { natsServerAvailable, startNatsServer, type BenchNatsServer } from "./lib/natsServer.js";
import { measureProcessCost } from "./lib/processCost.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { round } from "./lib/stats.js";

const conversations = sized("SHAPING_CONVERSATIONS", 8, 4);
const perTurn = sized("SHAPING_PER_TURN", 40, 20);
const pairs = sized("SHAPING_PAIRS", 40, 2);
const warmups = sized("SHAPING_WARMUPS", 3, 1);

/** Far above the traffic: consulted on every send, never binding. */
const unbound = { messages: 1_000_000, per_secs: 1 };
/** Each side's platform: only "on" has limits. The control sends both sides to the same one. */
const sides = { off: "bench-unlimited", on: "telegram" } as const;
const control = { off: "telegram", on: "telegram" } as const;
type Side = keyof typeof sides;

interface Measured {
  seconds: number;
  cpuMicros: number;
  bubbles: number;
}

async function compare(bus: "embedded" | "nats", platforms: Readonly<Record<Side, string>>, server?: BenchNatsServer) {
  const gateway = await RemoteGateway.start();
  const subject = await startAgentBroker({
    gatewayUrl: gateway.url,
    gatewayToken: gateway.token,
    delivery: { mode: "sequential", bubble_delay_ms: 0, max_bubbles: perTurn },
    maxSessions: 2 * conversations,
    rateLimits: { telegram: { per_conversation: unbound, per_group: unbound, per_bot: unbound } },
    ...(server === undefined ? {} : { nats: { url: server.url, prefix: `shaping${process.pid}${platforms.off}` } }),
  });
  const measured: Record<Side, Measured> = { off: { seconds: 0, cpuMicros: 0, bubbles: 0 }, on: { seconds: 0, cpuMicros: 0, bubbles: 0 } };
  let rounds = 0;
  const runRound = async (side: Side) => {
    rounds += 1;
    const expected = gateway.replies.length + conversations * perTurn;
    for (let c = 0; c < conversations; c++) {
      gateway.broadcast({ ...devEvent(`bubbles ${perTurn} 0`, { eventId: `shaping-${bus}-${platforms.off}-${rounds}-${c}`, platform: platforms[side] }), channel: { id: `shaping-${c}`, type: "dm" } });
    }
    await gateway.replyCount(expected, 60_000);
  };
  try {
    await gateway.connected();
    for (let n = 0; n < warmups; n++) for (const side of ["off", "on"] as const) await runRound(side);
    for (let pair = 0; pair < pairs; pair++) {
      for (const side of ["off", "on", "on", "off"] as const) {
        const cost = measureProcessCost();
        const started = performance.now();
        await runRound(side);
        measured[side].seconds += (performance.now() - started) / 1000;
        measured[side].cpuMicros += cost.stop().cpuMicros;
        measured[side].bubbles += conversations * perTurn;
      }
    }
  } finally {
    await subject.stop();
    await gateway.stop();
  }
  const summary = (side: Side) => ({
    bubblesPerSec: round(measured[side].bubbles / measured[side].seconds),
    cpuMicrosPerBubble: round(measured[side].cpuMicros / measured[side].bubbles, 1),
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
  return result;
}

/** Shaping's cost on `bus`, and beside it the same comparison with both sides on the same platform: what the method's noise alone comes to. */
async function measure(bus: "embedded" | "nats", server?: BenchNatsServer) {
  const result = { ...(await compare(bus, sides, server)), control: await compare(bus, control, server) };
  note(`${bus}: ${JSON.stringify(result)}`);
  return result;
}

const embedded = await measure("embedded");
let nats: Awaited<ReturnType<typeof measure>> | { skipped: string };
if (natsServerAvailable()) {
  const server = await startNatsServer();
  try {
    nats = await measure("nats", server);
  } finally {
    await server.stop();
  }
} else nats = { skipped: "nats-server not found" };
emit({ benchmark: "shaping", unit: "bubbles/s", conversations, bubblesPerTurn: perTurn, rounds: 4 * pairs, pairs, embedded, nats });
