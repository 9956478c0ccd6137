import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { expectLoopHeld, floodWhileProbing, loopTurnProbeAvailable, startProbedBroker, type ProbedBroker } from "../helpers/pipelinedFlood.js";

// A real `turnstream run` with [metrics], flooded with pipelined GET /metrics on raw sockets while
// a kubelet-like probe asks /healthz on fresh connections. Before the fix each scrape was its own
// collection and Node's parser took a whole read of pipelined requests at once: 10,000 scrapes
// froze the loop for 15 s and /healthz answered 503 "stalled". The full flood (200 × 50) is in
// metricsFlood.load.test.ts; this is its small sibling.
//
// The loop is read from inside the broker (test/helpers/loopTurnProbe.mjs): the CPU its main
// thread spent between two turns is the broker's own doing and is held to 250 ms; the wall-clock
// gap also holds the time other processes had one of the two shared cores, so its bound is generous.

const dir = mkdtempSync(join(tmpdir(), "turnstream-metrics-flood-"));
let broker: ProbedBroker | undefined;
afterAll(async () => {
  await broker?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe.skipIf(!loopTurnProbeAvailable())("a pipelined flood of /metrics on a real broker (50 connections × 20)", () => {
  it("answers every scrape, keeps /healthz at 200, and never holds the loop for 250 ms of its own work", async () => {
    broker = await startProbedBroker(dir);
    const run = await floodWhileProbing(broker, { connections: 50, requests: 20 });
    expectLoopHeld(run, 1_000, broker.logs);
  }, 60_000);
});
