import { afterEach, describe, expect, it } from "vitest";
import { channelBurst, liveAgents, sampleUntil } from "../helpers/channelBurst.js";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

describe.each(stackBuses())("every session busy: turns wait for one (real gateway socket, real agent processes, %s bus)", (bus) => {
  useStackBus(bus);

  it("twelve messages at once on twelve channels with max_sessions = 2: all answered, never more than 2 agents alive", async () => {
    for (let round = 0; round < 3; round++) {
      stack = await startStack({ config: { pool: { max_sessions: 2 } } });
      const events = channelBurst(12);
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

describe("a burst on 50 channels with max_sessions = 3 (real gateway socket, real agent processes)", () => {
  // The 2,000-channel run of the same rule is in poolWait.load.test.ts: a turn waits its turn for a
  // session however many wait, and none gives up (⚠️) while the pool drains them.
  it("answers all 50 events with 200 ms turns, none with ⚠️, never more than 3 agents alive", async () => {
    stack = await startStack({ config: { pool: { max_sessions: 3 } } });
    const events = channelBurst(50);
    for (const event of events) stack.gateway.broadcast(event);
    const answered = stack.replyCount(50, 120_000);
    const live = await sampleUntil(answered, () => liveAgents(stack as Stack), 20);
    const replies = await answered;
    expect(replies.filter((r) => r.content.text !== "slow done")).toEqual([]);
    expect(new Set(replies.map((r) => r.reply_to))).toEqual(new Set(events.map((e) => e.event_id)));
    expect(stack.records.filter((r) => r.msg === "turn failed")).toEqual([]);
    expect(stack.agentEvents().filter((line) => line.startsWith("start "))).toHaveLength(50);
    expect(Math.max(...live)).toBeLessThanOrEqual(3);
  }, 180_000);
});
