// One worker process of the scale benchmark: `connectBroker` with role "worker" on the NATS server
// named by BENCH_NATS_URL / BENCH_PREFIX, with the ingress benchmarks' triage stage and instant
// agent. Reports its settled count to the parent (bench/scale.ts) within 5 ms of a change;
// the parent can hold turns back with a gate. Started by the parent over IPC; not run by hand.
import { BehaviorSubject } from "rxjs";
import { nowNs } from "./lib/benchEnv.js";
import type { WorkerCommand, WorkerReport } from "./lib/scaleProtocol.js";
import { startTurnstreamIngress } from "./lib/turnstreamIngress.js";

const report = (message: WorkerReport) => process.send?.(message);
const url = process.env.BENCH_NATS_URL ?? "";
const prefix = process.env.BENCH_PREFIX ?? "";

const gate = new BehaviorSubject(true);
const worker = await startTurnstreamIngress({ nats: { url, prefix }, role: "worker", gate });
let lastNs = 0n;
// One report per 5 ms of activity at most, and no timer at all while idle (wake-ups cost CPU).
let pending: NodeJS.Timeout | undefined;
worker.broker?.settledTurns.subscribe(() => {
  lastNs = nowNs();
  pending ??= setTimeout(() => {
    pending = undefined;
    report({ kind: "settled", count: worker.settled.count, lastNs: String(lastNs) });
  }, 5);
});

process.on("message", (command: WorkerCommand) => {
  if (command.kind === "gate") gate.next(command.open);
  else
    void worker.stop().then(() => {
      clearTimeout(pending);
      report({ kind: "stopped" });
      process.disconnect();
    });
});
// The parent went away without stopping us: do not linger reconnecting to its server.
process.on("disconnect", () => process.exit(0));
report({ kind: "ready", pid: process.pid });
