import { afterEach, describe, expect, it } from "vitest";
import { channelBurst, sampleUntil } from "../helpers/channelBurst.js";
import { startStack, type Stack } from "../helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

describe("a burst on 2,000 channels with max_sessions = 10 (real gateway socket, real agent processes)", () => {
  // Each channel's turn needs an agent process of its own (ten live at a time), so this runs 2,000
  // agent processes: about 1–2 minutes on two busy cores.
  it("answers all 2,000 events with 200 ms turns, none with ⚠️, with a bounded heap", async () => {
    stack = await startStack({ config: { pool: { max_sessions: 10 } } });
    const events = channelBurst(2_000);
    const heapBefore = process.memoryUsage().heapUsed;
    const started = Date.now();
    for (const event of events) stack.gateway.broadcast(event);
    const answered = stack.replyCount(2_000, 600_000);
    const heap = await sampleUntil(answered, () => process.memoryUsage().heapUsed, 250);
    const replies = await answered;
    const durationMs = Date.now() - started;
    expect(replies.filter((r) => r.content.text.includes("⚠️"))).toEqual([]);
    expect(replies.filter((r) => r.content.text !== "slow done")).toEqual([]);
    expect(new Set(replies.map((r) => r.reply_to)).size).toBe(2_000);
    expect(stack.records.filter((r) => r.msg === "turn failed")).toEqual([]);
    expect(stack.agentEvents().filter((line) => line.startsWith("start "))).toHaveLength(2_000);
    // Generous: 2,000 waiting turns and their log records are a few MB; a leak per turn would show as hundreds.
    const peakMb = (Math.max(...heap) - heapBefore) / 2 ** 20;
    expect(peakMb).toBeLessThan(256);
    console.info(`2,000-channel burst: ${durationMs} ms, peak heap growth ${peakMb.toFixed(1)} MB`);
  }, 900_000);
});
