// Preloaded into a spawned `turnstream` (NODE_OPTIONS="--import=<this file>") to read, from inside
// the broker, how long its event loop went without turning: a 10 ms timer notes each gap between
// two of its ticks, and how much CPU the main thread spent in that gap (Linux' per-thread
// schedstat). The CPU is the broker's own doing; the rest of a gap is the machine's other
// processes holding the core, which two shared cores make large and random. On SIGUSR2 it writes
// the worst gaps since the previous signal to $LOOP_TURN_PROBE_FILE, numbered, and starts over.
import { readFileSync, writeFileSync } from "node:fs";

const file = process.env.LOOP_TURN_PROBE_FILE;
const TICK_MS = 10;

/** [ns on the CPU, ns waiting for it] of the main thread so far. */
function schedstat() {
  const [running, waiting] = readFileSync("/proc/thread-self/schedstat", "utf8").split(" ").map(Number);
  return [running, waiting];
}

let signals = 0;
let last = performance.now();
let [cpu0, wait0] = schedstat();
const none = () => ({ gapMs: 0, cpuMs: 0, waitMs: 0 });
/** The gap with the most CPU in it, and the longest gap. */
let worst = { cpu: none(), gap: none() };

function tick() {
  const now = performance.now();
  const [cpu, wait] = schedstat();
  const gap = { gapMs: now - last - TICK_MS, cpuMs: (cpu - cpu0) / 1e6, waitMs: (wait - wait0) / 1e6 };
  if (gap.cpuMs > worst.cpu.cpuMs) worst.cpu = gap;
  if (gap.gapMs > worst.gap.gapMs) worst.gap = gap;
  last = now;
  cpu0 = cpu;
  wait0 = wait;
  setTimeout(tick, TICK_MS).unref();
}
setTimeout(tick, TICK_MS).unref();

process.on("SIGUSR2", () => {
  signals += 1;
  if (file !== undefined) writeFileSync(file, JSON.stringify({ signal: signals, ...worst }));
  worst = { cpu: none(), gap: none() };
});
