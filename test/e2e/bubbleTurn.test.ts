import { afterEach, describe, expect, it } from "vitest";
import { SEQUENTIAL_MODE_OFF_WARNING } from "../../src/turn/delivery/deliveryLogMessages.js";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

/** Milliseconds between consecutive reply frames' arrival at the gateway. */
function gaps(arrivals: number[]): number[] {
  return arrivals.slice(1).map((at, i) => at - (arrivals[i] ?? at));
}

async function run(mode: "structured" | "sequential", text: string, options: { delayMs?: number; agentEnv?: Record<string, string> } = {}) {
  stack = await startStack({
    config: { delivery: { mode, bubble_delay_ms: options.delayMs ?? 400 } },
    ...(options.agentEnv === undefined ? {} : { agentEnv: options.agentEnv }),
  });
  const arrivals: number[] = [];
  stack.gateway.received.subscribe((frame) => frame.kind === "reply" && frame.frame.command === undefined && arrivals.push(performance.now()));
  stack.gateway.broadcast(userEvent(text));
  return { stack, arrivals };
}

const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(stackBuses())("structured delivery end to end (OpenAB's bubble-test rows) (%s bus)", (bus) => {
  useStackBus(bus);
  it("envelope: three bubbles in order, about 400 ms apart, each acked", async () => {
    const { stack, arrivals } = await run("structured", "envelope");
    const replies = await stack.replyCount(3);
    expect(replies.map((r) => r.content.text)).toEqual(["on it", "your flight moved to 8pm", "gate B12"]);
    for (const reply of replies) expect(reply.request_id).toMatch(/^req_/);
    // Generous bounds: the machine is shared; the exact 400 ms (from departure) is asserted in
    // virtual time, and arrivals jitter by a few ms either way.
    for (const gap of gaps(arrivals)) expect(gap).toBeGreaterThanOrEqual(350), expect(gap).toBeLessThan(2_000);
    await settle();
    expect(stack.replies).toHaveLength(3);
  });

  it("multiline: one message with three lines", async () => {
    const { stack } = await run("structured", "multiline");
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("alpha\nbeta\ngamma");
    await settle();
    expect(stack.replies).toHaveLength(1);
  });

  it("silent: nothing is sent and the turn completes", async () => {
    const { stack } = await run("structured", "silent");
    expect(await until(() => stack.records.some((r) => r.msg === "turn complete"), 10_000)).toBe(true);
    expect(stack.replies).toHaveLength(0);
  });

  it("prose: delivered verbatim", async () => {
    const { stack } = await run("structured", "prose");
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("hey what's up");
  });

  it("broken: the prose before the truncated envelope, no '{', and the parse-failure log line", async () => {
    const { stack } = await run("structured", "broken");
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("sorry, one sec");
    expect(reply?.content.text).not.toContain("{");
    const failure = stack.records.find((r) => r.msg === "structured turn did not parse");
    expect(failure).toMatchObject({ policy: "fallback_text", error: expect.any(String) });
    await settle();
    expect(stack.replies).toHaveLength(1);
  });

  it("toolong: five bubbles over max_bubbles 4 send the parse_error_text line, never a truncated plan", async () => {
    const { stack } = await run("structured", "toolong");
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("⚠️ something went wrong composing that reply");
    await settle();
    expect(stack.replies).toHaveLength(1);
    expect(JSON.stringify(stack.replies)).not.toContain("openab.turn.v1");
  });
});

// Issue 17, hole 3: the agent's envelope spells its keys and schema with `\u` escapes.
describe.each(stackBuses())("a \\u-escaped envelope end to end (%s bus)", (bus) => {
  useStackBus(bus);
  it("escaped: delivered as its one bubble, never as the envelope", async () => {
    const { stack } = await run("structured", "escaped");
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("the secret plan");
    await settle();
    expect(stack.replies).toHaveLength(1);
    expect(stack.records.some((r) => r.msg === "structured turn did not parse")).toBe(false);
  });

  it.each([
    ["fallback_text", ["Sure!"]],
    ["error_message", ["⚠️ something went wrong composing that reply"]],
    ["silent", []],
  ] as const)("escaped broken, on_parse_error = %s: the policy's answer, no '{' reaches the gateway", async (policy, expected) => {
    stack = await startStack({ config: { delivery: { mode: "structured", bubble_delay_ms: 0, on_parse_error: policy } } });
    stack.gateway.broadcast(userEvent("escaped broken"));
    expect(await until(() => stack!.records.some((r) => r.msg === "turn complete"), 10_000)).toBe(true);
    await settle();
    expect(stack.replies.map((r) => r.content.text)).toEqual(expected);
    for (const reply of stack.replies) expect(reply.content.text).not.toContain("{");
    expect(stack.records.find((r) => r.msg === "structured turn did not parse")).toMatchObject({ policy, error: expect.stringContaining("did not deserialize") });
  });
});

describe.each(stackBuses())("sequential delivery end to end (%s bus)", (bus) => {
  useStackBus(bus);
  it("sequential: three bubbles, in order", async () => {
    const { stack } = await run("sequential", "sequential", { delayMs: 0 });
    const replies = await stack.replyCount(3);
    expect(replies.map((r) => r.content.text)).toEqual(["on it", "checking your mail now", "your flight moved to 8pm\ngate B12"]);
  });

  it("seqslow: bubbles go out as the agent decides them, about 2 s apart with delay 0", async () => {
    const { stack, arrivals } = await run("sequential", "seqslow", { delayMs: 0, agentEnv: { SEQSLOW_MS: "1000" } });
    await stack.replyCount(3, 20_000);
    // Sent as decided, not all at the end (gaps near 0): the agent's own timers jitter under load, so half its 1 s is the floor.
    for (const gap of gaps(arrivals)) expect(gap).toBeGreaterThanOrEqual(500), expect(gap).toBeLessThan(4_000);
  });

  it("seqhalf: two bubbles, then the turn is marked failed as any failed turn is (⚠️ notice, turn failed)", async () => {
    const { stack } = await run("sequential", "seqhalf", { delayMs: 0 });
    await stack.replyCount(3);
    expect(await until(() => stack.records.some((r) => r.msg === "turn failed"), 10_000)).toBe(true);
    expect(stack.records.find((r) => r.msg === "turn failed")).toMatchObject({ reason: "turn_failed", err: { type: "DeliveryIncompleteError", delivered: 2 } });
    await settle();
    // The user keeps what arrived; the accumulated chunk text is never delivered.
    expect(stack.replies.map((r) => r.content.text)).toEqual([
      "on it",
      "checking your mail now",
      "⚠️ sequential turn failed after 2 bubble(s): JSON-RPC error -32000: simulated agent failure",
    ]);
  });

  it("an agent without the extension falls through to the text path", async () => {
    const { stack } = await run("sequential", "prose", { delayMs: 0 });
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("hey what's up");
  });

  it("a slow gateway with varying ack delays still receives bubbles strictly in order", async () => {
    let n = 0;
    stack = await startStack({
      config: { delivery: { mode: "sequential", bubble_delay_ms: 0 } },
      gateway: { ack: () => ({}), ackDelayMs: () => [180, 20, 90][n++ % 3] ?? 0 },
    });
    stack.gateway.broadcast(userEvent("sequential"));
    const replies = await stack.replyCount(3);
    expect(replies.map((r) => r.content.text)).toEqual(["on it", "checking your mail now", "your flight moved to 8pm\ngate B12"]);
  });

  it("text mode ignores openab_message with one warning per turn and delivers the turn's text", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("sequential"));
    expect(await until(() => stack!.records.some((r) => r.msg === "turn complete"), 10_000)).toBe(true);
    expect(stack.records.filter((r) => r.msg === SEQUENTIAL_MODE_OFF_WARNING)).toHaveLength(1);
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("_(no response)_");
  });
});
