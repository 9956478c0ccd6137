import { afterEach, describe, expect, it } from "vitest";
import type { ReplyFrame } from "../../src/devgateway/devGateway.js";
import { startStack, stackBuses, until, userEvent, useStackBus, type Stack, type StackOptions } from "../helpers/stack.js";

// OpenAB's batching (`[gateway] message_processing_mode`) end to end: a real dev gateway, the
// broker and the scripted agent, whose `echo` scenario (the default here) answers with every text
// block of its prompt, so a reply shows exactly how the batch was packed. The bounds are pinned in
// virtual time in test/operators/dispatch/sessionLanes.marble.test.ts.

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const prompts = (s: Stack) => s.agentEvents().filter((line) => line.startsWith("prompt "));

async function start(gateway: Record<string, unknown>, options: StackOptions = {}): Promise<Stack> {
  stack = await startStack({
    ...options,
    agentEnv: { SCENARIO: "echo", ...options.agentEnv },
    config: { ...options.config, gateway, reactions: { timing: { debounce_ms: 100, stall_soft_ms: 60_000, stall_hard_ms: 120_000 } } },
  });
  return stack;
}

/** The `sender_id`s and message texts of a batched echo reply, in prompt order. */
function arrivals(reply: string): { senders: string[]; texts: string[] } {
  const senders = [...reply.matchAll(/"sender_id":"([^"]+)"/g)].map((match) => match[1] as string);
  const texts = reply.split("\n").filter((line) => /^(first|second|third|a\d|b\d) thing$/.test(line));
  return { senders, texts };
}

/** The adds and removes on one message, as `+👀` / `-👀`. */
function changes(commands: readonly ReplyFrame[], messageId: unknown): string[] {
  return commands.filter((frame) => frame.reply_to === messageId).map((frame) => `${frame.command === "add_reaction" ? "+" : "-"}${frame.content.text}`);
}

/** Three messages sent while `slow 1500` holds the session. */
async function threeDuringASlowTurn(stack: Stack, texts = ["first thing", "second thing", "third thing"]): Promise<Record<string, unknown>[]> {
  stack.gateway.broadcast(userEvent("slow 1500"));
  expect(await until(() => prompts(stack).length === 1, 10_000)).toBe(true);
  const events = texts.map((text) => userEvent(text));
  for (const event of events) stack.gateway.broadcast(event);
  return events;
}

const batchLines = (s: Stack) => s.records.filter((r) => r.msg === "batch dispatched");

describe.each(stackBuses())("per-thread batching end to end (%s bus)", (bus) => {
  useStackBus(bus);

  it("three messages arriving while a turn runs become one turn with all three, in order, packed as OpenAB packs a batch; reactions on the last", async () => {
    const stack = await start({ message_processing_mode: "per-thread" });
    const events = await threeDuringASlowTurn(stack);
    const replies = await stack.replyCount(2, 20_000);
    expect(replies[0]?.content.text).toBe("slow done");
    const batched = replies[1]?.content.text ?? "";
    // One sender context per arrival, each followed by its text: no collect prompt.
    expect(batched).not.toContain("[Queued messages while agent was busy]");
    expect(batched.match(/<sender_context>/g)).toHaveLength(3);
    expect(arrivals(batched).texts).toEqual(["first thing", "second thing", "third thing"]);
    expect(await until(() => batchLines(stack).length === 2, 10_000)).toBe(true);
    expect(prompts(stack)).toHaveLength(2);
    expect(batchLines(stack)[1]).toMatchObject({ events_per_dispatch: 3, packed_block_count: 6, tokens_per_event: [3, 4, 3], senders: ["Ann", "Ann", "Ann"], thread_key: "telegram:chat-1:" });
    const line = batchLines(stack)[1] as unknown as { wait_ms: number[]; agent_dispatch_ms: number };
    expect(line.wait_ms).toHaveLength(3);
    expect(line.wait_ms.every((ms) => ms >= 0)).toBe(true);
    // 👀 on every message of the batch; the turn's own states on the last one only.
    // Reactions are fire-and-forget: wait for the last change (🆗's add, then 👀's removal) to land.
    expect(await until(() => changes(stack.commands, events[2]?.message_id).includes("-👀"), 10_000)).toBe(true);
    expect(changes(stack.commands, events[0]?.message_id)).toEqual(["+👀"]);
    expect(changes(stack.commands, events[1]?.message_id)).toEqual(["+👀"]);
    // (The echo answers at once, within the 🤔 debounce: 👀 goes straight to 🆗.)
    expect(changes(stack.commands, events[2]?.message_id).slice(0, 3)).toEqual(["+👀", "+🆗", "-👀"]);
  });
});

describe("per-thread batch bounds end to end", () => {
  it("max_batch_tokens splits an oversize batch: the message that would overflow heads the next one", async () => {
    // 8-byte texts are 3 tokens each (8 / 4 + 1): two fit in 7, the third waits for the next batch.
    const stack = await start({ message_processing_mode: "per-thread", max_batch_tokens: 7 });
    await threeDuringASlowTurn(stack, ["a1 thing", "a2 thing", "a3 thing"]);
    const replies = await stack.replyCount(3, 20_000);
    expect(arrivals(replies[1]?.content.text ?? "").texts).toEqual(["a1 thing", "a2 thing"]);
    expect(arrivals(replies[2]?.content.text ?? "").texts).toEqual(["a3 thing"]);
    expect(await until(() => batchLines(stack).length === 3, 10_000)).toBe(true);
    expect(batchLines(stack).map((line) => line.events_per_dispatch)).toEqual([1, 2, 1]);
  });

  it("max_buffered_messages caps how many messages one batch takes", async () => {
    const stack = await start({ message_processing_mode: "per-thread", max_buffered_messages: 2 });
    await threeDuringASlowTurn(stack);
    const replies = await stack.replyCount(3, 20_000);
    expect(arrivals(replies[1]?.content.text ?? "").texts).toEqual(["first thing", "second thing"]);
    expect(arrivals(replies[2]?.content.text ?? "").texts).toEqual(["third thing"]);
  });
});

describe("per-lane batching end to end", () => {
  it("keeps senders apart: each batch is one sender's messages, and the lanes share the thread's one session", async () => {
    const stack = await start({ message_processing_mode: "per-lane" });
    stack.gateway.broadcast(userEvent("slow 1500"));
    expect(await until(() => prompts(stack).length === 1, 10_000)).toBe(true);
    const bob = { sender: { id: "user-2", name: "bob", display_name: "Bob", is_bot: false } };
    stack.gateway.broadcast(userEvent("b1 thing", bob));
    stack.gateway.broadcast(userEvent("a1 thing"));
    stack.gateway.broadcast(userEvent("b2 thing", bob));
    stack.gateway.broadcast(userEvent("a2 thing"));
    // slow; then Bob's first (its lane was idle: it waited for the session); then each lane's rest.
    const replies = await stack.replyCount(4, 20_000);
    const later = replies.slice(1).map((reply) => arrivals(reply.content.text));
    for (const batch of later) expect(new Set(batch.senders).size).toBe(1);
    expect(later.flatMap((batch) => batch.texts).sort()).toEqual(["a1 thing", "a2 thing", "b1 thing", "b2 thing"]);
    expect(later.find((batch) => batch.senders[0] === "user-1")?.texts).toEqual(["a1 thing", "a2 thing"]);
    expect(later.find((batch) => batch.texts.includes("b2 thing"))?.texts).toEqual(["b2 thing"]);
    // One ACP session for the thread throughout.
    expect(new Set(prompts(stack).map((line) => line.split(" ")[1])).size).toBe(1);
    expect(await until(() => batchLines(stack).length === 4, 10_000)).toBe(true);
    expect(batchLines(stack).map((line) => line.thread_key).sort()).toEqual(["telegram:chat-1::@user-1", "telegram:chat-1::@user-1", "telegram:chat-1::@user-2", "telegram:chat-1::@user-2"]);
  });
});
