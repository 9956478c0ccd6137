import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { expectLoopHeld, floodWhileProbing, loopTurnProbeAvailable, startProbedBroker, type ProbedBroker } from "../helpers/pipelinedFlood.js";

// The flood that froze the broker for 15–18 s: 200 connections × 50 pipelined GET /metrics
// (10,000 scrapes), against a real `turnstream run`, probed as metricsFlood.test.ts probes it.

const dir = mkdtempSync(join(tmpdir(), "turnstream-metrics-flood-load-"));
let broker: ProbedBroker | undefined;
afterAll(async () => {
  await broker?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

describe.skipIf(!loopTurnProbeAvailable())("the full pipelined flood of /metrics on a real broker (200 connections × 50)", () => {
  it("answers all 10,000 scrapes, keeps /healthz at 200, and never holds the loop for 250 ms of its own work", async () => {
    broker = await startProbedBroker(dir);
    const run = await floodWhileProbing(broker, { connections: 200, requests: 50 });
    expectLoopHeld(run, 10_000, broker.logs);
  }, 120_000);
});
