import { afterEach, describe, expect, it } from "vitest";
import { busiestWindow, closestGap, DEPARTURE_GAP_MS, expectPacedNotShaped, measureLimits, recordArrivals, SECOND, SECOND_LESS_SLACK, spreadOf, type Arrival } from "../helpers/arrivals.js";
import { answerChats, chatsConfig } from "../helpers/chats.js";
import { Cluster } from "../helpers/cluster.js";
import { until } from "../helpers/stack.js";

// Outbound rate limits (`[rate_limits.<platform>]`): sends wait for their platform's tokens, per
// conversation and per bot, measured where the broker decides each send (its debug lines) and where
// a platform counts them — at the gateway, as each frame arrives. One `turnstream run` process on the embedded bus (its per-bot bucket in memory), the
// real dev gateway in the test's process, the scripted agent. The broker has a process of its own
// so that its work does not hold up the gateway's clock: sharing one event loop, a batch of thirty
// sends makes the gateway read the first of them 10–25 ms late. Several workers sharing the per-bot
// bucket through NATS: rateLimits.scaleOut.test.ts.

const perConversation = { messages: 1, per_secs: 1, burst: 1 };

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

/** The broker under `rate_limits`, connected to the gateway, and what arrives there from now on. */
async function deploy(rateLimits: Record<string, unknown>): Promise<{ c: Cluster; arrivals: Arrival[] }> {
  const c = (cluster = await Cluster.start({ config: { ...chatsConfig, rate_limits: rateLimits }, logLevel: "debug" }));
  await c.add("all");
  if (!(await until(() => c.gateway.brokerCount === 1, 10_000))) throw new Error("the broker did not connect to the dev gateway");
  return { c, arrivals: recordArrivals(c.gateway) };
}

describe("outbound rate limits at the gateway, one process (embedded bus)", () => {
  it("the defaults leave one ordinary turn alone: three bubbles 400 ms apart on telegram, not shaped", async () => {
    const { c, arrivals } = await deploy({});
    await answerChats(c, arrivals, 1, 20_000);
    report("defaults, one turn", { gaps: expectPacedNotShaped(arrivals) });
  });

  it("40 chats answering at once under the defaults: no second holds more than telegram's 30 per bot; nothing lost or reordered", async () => {
    const { c, arrivals } = await deploy({});
    await answerChats(c, arrivals, 40, 40_000);
    const { departures, trips, window } = await measureLimits(c.members, arrivals);
    report("defaults, 40 chats", { busiestDeparted: busiestWindow(departures, SECOND), busiestArrived: busiestWindow(arrivals, window), window, trips, spread: spreadOf(arrivals) });
    expect(busiestWindow(departures, SECOND)).toBeLessThanOrEqual(30);
    expect(busiestWindow(arrivals, window)).toBeLessThanOrEqual(30);
    // 120 messages, 30 a second: the fourth 30 a full 3 s after the first.
    expect(spreadOf(arrivals)).toBeGreaterThanOrEqual(3 * SECOND_LESS_SLACK);
  }, 60_000);

  it("control: the same 40 chats with telegram's limits off (enabled = false) put more than 30 sends in a second", async () => {
    const { c, arrivals } = await deploy({ telegram: { enabled: false } });
    await answerChats(c, arrivals, 40, 40_000);
    expect(busiestWindow(arrivals, 1_000)).toBeGreaterThan(30);
    report("limits off, 40 chats", { busiest1000: busiestWindow(arrivals, 1_000), spread: spreadOf(arrivals) });
  }, 60_000);

  it("per_conversation 1 per second, burst 1: 30 chats × 3 bubbles, no chat gets two messages less than a second apart; nothing lost or reordered", async () => {
    const { c, arrivals } = await deploy({ telegram: { per_conversation: perConversation } });
    await answerChats(c, arrivals, 30, 40_000);
    const { departures, trips } = await measureLimits(c.members, arrivals);
    report("per_conversation 1/s", { closestDeparted: closestGap(departures), closestArrived: closestGap(arrivals), trips, spread: spreadOf(arrivals) });
    expect(closestGap(departures)).toBeGreaterThanOrEqual(DEPARTURE_GAP_MS);
    expect(closestGap(arrivals)).toBeGreaterThanOrEqual(DEPARTURE_GAP_MS - trips);
    // Each chat's three a second apart at least.
    expect(spreadOf(arrivals)).toBeGreaterThanOrEqual(2 * SECOND_LESS_SLACK);
  }, 60_000);

  it("and per_bot 10 per second, burst 10: no second holds more than 10 sends in all, each chat still one a second; nothing lost or reordered", async () => {
    const { c, arrivals } = await deploy({ telegram: { per_conversation: perConversation, per_bot: { messages: 10, per_secs: 1, burst: 10 } } });
    // 90 messages at 10 a second: 8 s at the least.
    await answerChats(c, arrivals, 30, 40_000);
    const { departures, trips, window } = await measureLimits(c.members, arrivals);
    report("per_bot 10/s", { busiestDeparted: busiestWindow(departures, SECOND), busiestArrived: busiestWindow(arrivals, window), window, trips, closestDeparted: closestGap(departures), closestArrived: closestGap(arrivals), spread: spreadOf(arrivals) });
    expect(busiestWindow(departures, SECOND)).toBeLessThanOrEqual(10);
    expect(closestGap(departures)).toBeGreaterThanOrEqual(DEPARTURE_GAP_MS);
    expect(busiestWindow(arrivals, window)).toBeLessThanOrEqual(10);
    expect(closestGap(arrivals)).toBeGreaterThanOrEqual(DEPARTURE_GAP_MS - trips);
    expect(spreadOf(arrivals)).toBeGreaterThanOrEqual(8 * SECOND_LESS_SLACK);
  }, 60_000);
});

/** The measured figures, in the run's output with RATE_LIMITS_REPORT=1. */
function report(what: string, figures: Record<string, unknown>): void {
  if (process.env.RATE_LIMITS_REPORT === "1") console.log(`[rate limits, one process] ${what}: ${JSON.stringify(figures)}`);
}
