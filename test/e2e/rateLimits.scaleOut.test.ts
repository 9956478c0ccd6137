import { describe, expect, it } from "vitest";
import { busiestWindow, closestGap, DEPARTURE_GAP_MS, departuresOf, expectPacedNotShaped, measureLimits, recordArrivals, SECOND, SECOND_LESS_SLACK, spreadOf } from "../helpers/arrivals.js";
import { answerChats, chatsConfig } from "../helpers/chats.js";
import { heldPartitions as held, useNatsCluster, type Cluster, type Member } from "../helpers/cluster.js";
import { natsServerAvailable } from "../helpers/natsServer.js";
import { until } from "../helpers/stack.js";

// The per-bot limit is the deployment's: workers on one nats-server take their tokens from the
// shared `<prefix>_rates` KV bucket, so together they stay within it — measured where the workers
// decide each send (their debug lines) and at the gateway as each frame arrives. `turnstream run` processes (an edge, workers), the real dev gateway in the
// test's process, the scripted agent. One process on the embedded bus: rateLimits.test.ts.

const available = natsServerAvailable();

describe.skipIf(!available)("outbound rate limits across workers on NATS", () => {
  const nats = useNatsCluster();

  /** An edge and `count` workers under `rate_limits`, every partition owned and spread over all of them. */
  async function deploy(prefix: string, rateLimits: Record<string, unknown>, count: number): Promise<{ c: Cluster; workers: Member[] }> {
    // The default lease TTL (10 s), not the 3 s of the failover tests: 40 agents starting at once on
    // a 2-core machine have stalled a worker's lease renewals past half of 3 s, and a lost lease
    // re-runs its turns marked (docs/scaling.md) — failover, which is not what these tests measure.
    const c = await nats.start({ bus: { prefix }, config: { ...chatsConfig, rate_limits: rateLimits }, logLevel: "debug" });
    await c.add("edge");
    const workers: Member[] = [];
    for (let i = 0; i < count; i++) workers.push(await c.add("worker"));
    // Right after start-up one worker may hold every partition: spread before anything is sent.
    const spread = await until(() => ownedPartitions(workers).size === 16 && workers.every((worker) => held(worker).size >= Math.floor(16 / count) - 1), 30_000);
    if (!spread) throw new Error(`partitions not spread over the workers: ${workers.map((worker) => held(worker).size).join(", ")}`);
    return { c, workers };
  }

  /** Every worker ran some of the turns (so the limit held across them, not within one), and none shaped by its share alone. */
  function expectEveryWorkerSent(c: Cluster, workers: readonly Member[]): number[] {
    const turns = workers.map((worker) => worker.logs.filter((line) => line.msg === "turn complete").length);
    for (const count of turns) expect(count).toBeGreaterThan(0);
    expect(c.logged("shared rate limits unreachable; shaping locally")).toEqual([]);
    return turns;
  }

  it("the defaults leave one ordinary turn alone through edge and worker: three bubbles 400 ms apart, each bubble's token from the shared bucket", async () => {
    const { c, workers } = await deploy("rates_one", {}, 1);
    const arrivals = recordArrivals(c.gateway);
    await answerChats(c, arrivals, 1, 20_000);
    // Timed where the worker sends them, on its own clock: an arrival's time is this test process's,
    // whose event loop (reading every member's debug log) once stamped a bubble 200 ms late.
    report("defaults, one turn", { gaps: expectPacedNotShaped(departuresOf(workers)) });
  }, 60_000);

  it("40 chats answering at once over 3 workers under the defaults: no second holds more than telegram's 30 per bot in all", async () => {
    const { c, workers } = await deploy("rates_bot30", {}, 3);
    const arrivals = recordArrivals(c.gateway);
    await answerChats(c, arrivals, 40, 40_000);
    const turns = expectEveryWorkerSent(c, workers);
    const { departures, trips, window } = await measureLimits(workers, arrivals);
    report("defaults, 40 chats", { turns, busiestDeparted: busiestWindow(departures, SECOND), busiestArrived: busiestWindow(arrivals, window), window, trips, spread: spreadOf(arrivals) });
    expect(busiestWindow(departures, SECOND)).toBeLessThanOrEqual(30);
    expect(busiestWindow(arrivals, window)).toBeLessThanOrEqual(30);
    expect(spreadOf(arrivals)).toBeGreaterThanOrEqual(3 * SECOND_LESS_SLACK);
  }, 60_000);

  it("per_conversation 1/s and per_bot 10/s: 30 chats × 3 bubbles over 3 workers, no second holds more than 10 sends in all, no chat two within a second", async () => {
    const { c, workers } = await deploy("rates_bot10", { telegram: { per_conversation: { messages: 1, per_secs: 1, burst: 1 }, per_bot: { messages: 10, per_secs: 1, burst: 10 } } }, 3);
    const arrivals = recordArrivals(c.gateway);
    // 90 messages at 10 a second: 8 s at the least.
    await answerChats(c, arrivals, 30, 40_000);
    const turns = expectEveryWorkerSent(c, workers);
    const { departures, trips, window } = await measureLimits(workers, arrivals);
    report("per_bot 10/s", { turns, busiestDeparted: busiestWindow(departures, SECOND), busiestArrived: busiestWindow(arrivals, window), window, trips, closestDeparted: closestGap(departures), closestArrived: closestGap(arrivals), spread: spreadOf(arrivals) });
    expect(busiestWindow(departures, SECOND)).toBeLessThanOrEqual(10);
    expect(closestGap(departures)).toBeGreaterThanOrEqual(DEPARTURE_GAP_MS);
    expect(busiestWindow(arrivals, window)).toBeLessThanOrEqual(10);
    expect(closestGap(arrivals)).toBeGreaterThanOrEqual(DEPARTURE_GAP_MS - trips);
    expect(spreadOf(arrivals)).toBeGreaterThanOrEqual(8 * SECOND_LESS_SLACK);
  }, 60_000);
});

/** Partitions any of the workers holds now. */
function ownedPartitions(workers: readonly Member[]): Set<number> {
  const all = new Set<number>();
  for (const worker of workers) for (const p of held(worker)) all.add(p);
  return all;
}

/** The measured figures, in the run's output with RATE_LIMITS_REPORT=1. */
function report(what: string, figures: Record<string, unknown>): void {
  if (process.env.RATE_LIMITS_REPORT === "1") console.log(`[rate limits, NATS] ${what}: ${JSON.stringify(figures)}`);
}
