import { readlinkSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { isRunning } from "../helpers/agents.js";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** Events on `channels` distinct channels, each a 200 ms turn of the scripted agent (`slow 200`). */
const burst = (channels: number) => Array.from({ length: channels }, (_, i) => userEvent("slow 200", { channel: { id: `chan-${i}`, type: "dm" } }));

/**
 * This stack's agent processes alive right now: each started agent recorded `start <pid> <cwd>`;
 * it counts while that pid runs in that working directory (so a reused pid does not count).
 */
function liveAgents(s: Stack): number {
  let live = 0;
  for (const line of s.agentEvents()) {
    if (!line.startsWith("start ")) continue;
    const [, pid, cwd] = line.split(" ");
    try {
      if (isRunning(Number(pid)) && readlinkSync(`/proc/${pid}/cwd`) === cwd) live += 1;
    } catch {
      // gone between the two checks
    }
  }
  return live;
}

/** Samples `sample` every few ms until `done` resolves; resolves with the samples. */
async function sampleUntil<T>(done: Promise<unknown>, sample: () => T, everyMs = 5): Promise<T[]> {
  const samples: T[] = [];
  let finished = false;
  void done.finally(() => (finished = true));
  while (!finished) {
    samples.push(sample());
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  samples.push(sample());
  return samples;
}

describe.each(stackBuses())("every session busy: turns wait for one (real gateway socket, real agent processes, %s bus)", (bus) => {
  useStackBus(bus);

  it("twelve messages at once on twelve channels with max_sessions = 2: all answered, never more than 2 agents alive", async () => {
    for (let round = 0; round < 3; round++) {
      stack = await startStack({ config: { pool: { max_sessions: 2 } } });
      const events = burst(12);
      for (const event of events) stack.gateway.broadcast(event);
      const answered = stack.replyCount(12, 60_000);
      const live = await sampleUntil(answered, () => liveAgents(stack as Stack));
      const replies = await answered;
      expect(Math.max(...live), `round ${round}`).toBeLessThanOrEqual(2);
      expect(Math.max(...live), `round ${round}: agents ran at all`).toBeGreaterThanOrEqual(1);
      expect(stack.agentEvents().filter((line) => line.startsWith("start "))).toHaveLength(12);
      expect(replies.map((r) => r.content.text)).toEqual(Array(12).fill("slow done"));
      expect(new Set(replies.map((r) => r.reply_to))).toEqual(new Set(events.map((e) => e.event_id)));
      expect(stack.records.filter((r) => r.msg === "turn failed")).toEqual([]);
      await stack.stop();
      stack = undefined;
    }
  }, 240_000);

  it("a turn that waits past prompt_hard_timeout_secs fails with a short notice and logs pool_wait_timeout", async () => {
    stack = await startStack({ config: { pool: { max_sessions: 1, prompt_hard_timeout_secs: 2, hung_grace_secs: 10 } } });
    stack.gateway.broadcast(userEvent("hang", { channel: { id: "hanging", type: "dm" } }));
    expect(await until(() => stack!.agentEvents().some((line) => line.startsWith("prompt ")), 15_000)).toBe(true);
    const waiting = userEvent("prose", { channel: { id: "waiting", type: "dm" } });
    stack.gateway.broadcast(waiting);
    // The hanging turn holds its session until hung_grace_secs after its own hard timeout: long after the wait gave up.
    const [notice] = await stack.replyCount(1, 30_000);
    expect(notice?.reply_to).toBe(waiting.event_id);
    expect(notice?.content.text).toBe("⚠️ every agent session stayed busy for 2s; please try again");
    expect(stack.records.find((r) => r.msg === "session wait timed out")).toMatchObject({ reason: "pool_wait_timeout", sessionKey: "telegram:waiting:", maxSessions: 1 });
    expect(await until(() => stack!.records.some((r) => r.msg === "turn failed" && r.reason === "pool_wait_timeout"), 5_000)).toBe(true);
    expect(stack.agentEvents().filter((line) => line.startsWith("start "))).toHaveLength(1); // the waiting turn never started an agent
  }, 60_000);

  it("/cancel calls off a turn waiting for a session: the cancel reply, and the turn never runs", async () => {
    stack = await startStack({ config: { pool: { max_sessions: 1 } } });
    stack.gateway.broadcast(userEvent("slow 5000", { channel: { id: "busy", type: "dm" } }));
    expect(await until(() => stack!.agentEvents().some((line) => line.startsWith("prompt ")), 15_000)).toBe(true);
    const channel = { id: "waiting", type: "dm" };
    stack.gateway.broadcast(userEvent("prose", { channel }));
    expect(await until(() => stack!.records.some((r) => r.msg === "waiting for a session" && r.sessionKey === "telegram:waiting:"), 15_000)).toBe(true);
    stack.gateway.broadcast(userEvent("/cancel", { channel }));
    const replies = await stack.replyCount(2, 30_000);
    expect(replies.map((r) => [r.channel.id, r.content.text])).toEqual([
      ["waiting", "🛑 Cancel signal sent."],
      ["busy", "slow done"],
    ]);
    expect(stack.records.find((r) => r.msg === "session wait cancelled")).toMatchObject({ reason: "cancelled", sessionKey: "telegram:waiting:" });
    expect(stack.agentEvents().filter((line) => line.startsWith("prompt "))).toHaveLength(1);
  }, 60_000);
});

describe("a burst on 2,000 channels with max_sessions = 10 (real gateway socket, real agent processes)", () => {
  // Each channel's turn needs an agent process of its own (ten live at a time), so this runs 2,000
  // agent processes: about 1–2 minutes on two busy cores.
  it("answers all 2,000 events with 200 ms turns, none with ⚠️, with a bounded heap", async () => {
    stack = await startStack({ config: { pool: { max_sessions: 10 } } });
    const events = burst(2_000);
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
