import { afterEach, describe, expect, it } from "vitest";
import { busiestWindow, expectPacedNotShaped, closestGap, recordArrivals, spreadOf, type Arrival } from "../helpers/arrivals.js";
import { answerChats, chatsConfig } from "../helpers/chats.js";
import { Cluster } from "../helpers/cluster.js";
import { until } from "../helpers/stack.js";

// Outbound rate limits (`[rate_limits.<platform>]`): sends wait for their platform's tokens, per
// conversation and per bot, measured where a platform counts them — at the gateway, as each frame
// arrives. One `turnstream run` process on the embedded bus (its per-bot bucket in memory), the
// real dev gateway in the test's process, the scripted agent. The broker has a process of its own
// so that its work does not hold up the gateway's clock: sharing one event loop, a batch of thirty
// sends makes the gateway read the first of them 10–25 ms late. Several workers sharing the per-bot
// bucket through NATS: rateLimits.scaleOut.test.ts.

const perConversation = { messages: 1, per_secs: 1, burst: 1 };

/**
 * A window shorter than the limit's second by measurement slack only: a send's trip to the gateway
 * varies by a few ms, so two sends the broker spaced exactly 1 s apart may arrive 999 ms apart.
 */
const SECOND_LESS_SLACK = 980;

/**
 * The least gap one chat's two messages may show at the gateway: the limit's second less the
 * jitter of the gateway's reads. The gateway reads on the test's event loop, and with other suites
 * busy on both cores it read the first of two frames 28 ms late (972 ms seen). Unshaped, a chat's
 * bubbles are 400 ms apart, so a missing per-conversation limit still fails here.
 */
const GAP_FLOOR_MS = 900;

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

/** The broker under `rate_limits`, connected to the gateway, and what arrives there from now on. */
async function deploy(rateLimits: Record<string, unknown>): Promise<{ c: Cluster; arrivals: Arrival[] }> {
  const c = (cluster = await Cluster.start({ config: { ...chatsConfig, rate_limits: rateLimits } }));
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
    expect(busiestWindow(arrivals, SECOND_LESS_SLACK)).toBeLessThanOrEqual(30);
    // 120 messages, 30 a second: the fourth 30 a full 3 s after the first.
    expect(spreadOf(arrivals)).toBeGreaterThanOrEqual(3 * SECOND_LESS_SLACK);
    report("defaults, 40 chats", { busiest1000: busiestWindow(arrivals, 1_000), busiest980: busiestWindow(arrivals, SECOND_LESS_SLACK), spread: spreadOf(arrivals) });
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
    expect(closestGap(arrivals)).toBeGreaterThanOrEqual(GAP_FLOOR_MS);
    // Each chat's three a second apart at least.
    expect(spreadOf(arrivals)).toBeGreaterThanOrEqual(2 * SECOND_LESS_SLACK);
    report("per_conversation 1/s", { closestGap: closestGap(arrivals), spread: spreadOf(arrivals) });
  }, 60_000);

  it("and per_bot 10 per second, burst 10: no second holds more than 10 sends in all, each chat still one a second; nothing lost or reordered", async () => {
    const { c, arrivals } = await deploy({ telegram: { per_conversation: perConversation, per_bot: { messages: 10, per_secs: 1, burst: 10 } } });
    // 90 messages at 10 a second: 8 s at the least.
    await answerChats(c, arrivals, 30, 40_000);
    expect(busiestWindow(arrivals, SECOND_LESS_SLACK)).toBeLessThanOrEqual(10);
    expect(closestGap(arrivals)).toBeGreaterThanOrEqual(GAP_FLOOR_MS);
    expect(spreadOf(arrivals)).toBeGreaterThanOrEqual(8 * SECOND_LESS_SLACK);
    report("per_bot 10/s", { closestGap: closestGap(arrivals), busiest1000: busiestWindow(arrivals, 1_000), busiest980: busiestWindow(arrivals, SECOND_LESS_SLACK), spread: spreadOf(arrivals) });
  }, 60_000);
});

/** The measured figures, in the run's output with RATE_LIMITS_REPORT=1. */
function report(what: string, figures: Record<string, unknown>): void {
  if (process.env.RATE_LIMITS_REPORT === "1") console.log(`[rate limits, one process] ${what}: ${JSON.stringify(figures)}`);
}
