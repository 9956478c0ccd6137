// Pacing precision: structured delivery with bubble_delay_ms 400. The stamp agent answers with an
// envelope of `bubbles` bubbles; `sessions` conversations run their turns at once, so several
// pacing timers share the event loop. The gateway (its own process) acks every send at once and
// records each reply's arrival on the monotonic clock; the error of a gap is
// (arrival(n+1) − arrival(n)) − 400 ms: the gap a user sees. Bubbles are paced from the previous
// one's departure (its ack only a lower bound), so with fast acks no round trip is in the gap; what
// is left is timer lateness, conversations whose timers fall due together, and GC. The broker
// process's event-loop delay over the counted rounds is reported beside it: a stall there moves
// every conversation's gap at once.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { devEvent } from "../src/devgateway/devGateway.js";
import { startAgentBroker } from "./lib/agentBroker.js";
import { elapsedMs, emit, note, sized, sleep } from "./lib/benchEnv.js";
import { RemoteGateway } from "./lib/remoteGateway.js";
import { distribution, round } from "./lib/stats.js";

const delayMs = 400;
const bubbles = sized("PACING_BUBBLES", 11, 6);
const sessions = sized("PACING_SESSIONS", 8, 4);
const rounds = sized("PACING_ROUNDS", 3, 1);
/**
 * Rounds run before the counted ones: the agent processes start in the first, and V8's first
 * memory-reducer collections (three mark-compacts 0.6 s apart, 5–11 ms each, ~8–9.5 s after the
 * process started, once) fall in the next two — a start-up cost, not the pacing of a running broker.
 */
const warmupRounds = sized("PACING_WARMUP_ROUNDS", 3, 1);
/** Diagnostic: start the conversations this many ms apart, so their pacing timers do not coincide (default 0: all at once). */
const staggerMs = Number(process.env.BENCH_PACING_STAGGER_MS ?? 0);

const gateway = await RemoteGateway.start();
const subject = await startAgentBroker({ gatewayUrl: gateway.url, gatewayToken: gateway.token, delivery: { mode: "structured", bubble_delay_ms: delayMs, max_bubbles: bubbles } });
const errors: number[] = [];
const loop = monitorEventLoopDelay({ resolution: 1 });
const event = (channel: string, id: string) => ({ ...devEvent(`envelope ${bubbles}`, { eventId: id }), channel: { id: channel, type: "dm" } });
try {
  await gateway.connected();
  for (let round = 1 - warmupRounds; round <= rounds; round++) {
    const from = gateway.replies.length;
    for (let s = 0; s < sessions; s++) {
      if (s > 0 && staggerMs > 0) await sleep(staggerMs);
      gateway.broadcast(event(`pace-${s}`, `pace-${round}-${s}`));
    }
    const expected = from + sessions * bubbles;
    await gateway.replyCount(expected, 60_000);
    if (round <= 0) {
      if (round === 0) loop.enable(); // warm-up over: the counted rounds begin
      continue;
    }
    const byChannel = new Map<string, bigint[]>();
    for (const reply of gateway.replies.slice(from)) byChannel.set(reply.channel, [...(byChannel.get(reply.channel) ?? []), reply.atNs]);
    for (const times of byChannel.values()) {
      for (let i = 1; i < times.length; i++) errors.push(elapsedMs(times[i - 1] as bigint, times[i] as bigint) - delayMs);
    }
    note(`round ${round}: ${errors.length} gaps so far`);
  }
} finally {
  loop.disable();
  await subject.stop();
  await gateway.stop();
}
const absolute = distribution(errors.map(Math.abs));
const signed = distribution(errors);
emit({
  benchmark: "pacing",
  unit: "ms",
  bubbleDelayMs: delayMs,
  bubblesPerTurn: bubbles,
  concurrentSessions: sessions,
  rounds,
  warmupRounds,
  ...(staggerMs > 0 ? { staggerMs } : {}),
  absoluteError: absolute,
  signedError: { p50: signed.p50, p99: signed.p99, min: round(Math.min(...errors), 3), max: signed.max },
  loopDelay: { p99: round(loop.percentile(99) / 1e6, 2), max: round(loop.max / 1e6, 2) },
});
