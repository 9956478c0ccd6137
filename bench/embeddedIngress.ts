// Embedded-bus ingress throughput: events submitted through the edge half (afterIngress, persist
// with msg-id dedupe) and run by the worker half (per-session lanes, beforeDispatch, an instant
// turn handler, ack). No gateway socket and no agent process: this measures the broker's own
// pipeline. Run: npm run bench. Prints JSON with the median of repeated runs.
import { pino } from "pino";
import { EMPTY } from "rxjs";
import { createBroker } from "../src/broker/createBroker.js";
import { MemoryBus } from "../src/bus/memoryBus.js";
import type { GatewayEvent } from "../operators/ingress/gatewayEvent.js";

const events = Number(process.env.BENCH_EVENTS ?? 50_000);
const sessions = 256;
const runs = Number(process.env.BENCH_RUNS ?? 5);

function event(i: number): GatewayEvent {
  return {
    schema: "openab.gateway.event.v1",
    event_id: `evt-${i}`,
    timestamp: "",
    platform: "telegram",
    channel: { id: `chat-${i % sessions}`, type: "dm" },
    sender: { id: "u1", name: "ann", display_name: "Ann", is_bot: false },
    content: { type: "text", text: "hello" },
    mentions: [],
    message_id: `m-${i}`,
    proactive: false,
  };
}

async function once(): Promise<number> {
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const broker = createBroker({
    bus: new MemoryBus(),
    logger: pino({ level: "silent" }),
    turnHandler: () => {
      if (++done === events) finish();
      return EMPTY;
    },
  });
  await broker.start();
  const started = performance.now();
  for (let i = 0; i < events; i++) await broker.submit(event(i));
  await finished;
  const seconds = (performance.now() - started) / 1000;
  await broker.stop({ graceMs: 0 });
  return events / seconds;
}

const rates: number[] = [];
await once(); // warm-up
for (let r = 0; r < runs; r++) rates.push(await once());
rates.sort((a, b) => a - b);
const median = rates[Math.floor(rates.length / 2)] ?? 0;
console.log(
  JSON.stringify({ benchmark: "embedded-ingress", events, sessions, runs, eventsPerSecond: Math.round(median), node: process.version }),
);
