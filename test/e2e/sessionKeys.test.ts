import { afterEach, describe, expect, it } from "vitest";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const sessionsCreated = (s: Stack) => s.agentEvents().filter((line) => line.startsWith("new "));
/** The session each prompt ran in, by the order the prompts reached the agent. */
const promptSessions = (s: Stack) => s.agentEvents().flatMap((line) => (line.startsWith("prompt ") ? [line.split(" ")[1]] : []));
const inThread = (channel: string, thread: string) => ({ channel: { id: channel, type: "group", thread_id: thread } });

describe.each(stackBuses())("one agent session per conversation: platform, channel and thread (%s bus)", (bus) => {
  useStackBus(bus);

  it("gives two channels with the same thread id two agent sessions (two session/new), each answered in its own channel", async () => {
    stack = await startStack();
    const a = userEvent("prose", inThread("chat-A", "T1"));
    stack.gateway.broadcast(a);
    await stack.replyCount(1);
    const b = userEvent("prose", inThread("chat-B", "T1"));
    stack.gateway.broadcast(b);
    const replies = await stack.replyCount(2);
    expect(replies.map((r) => [r.reply_to, r.channel.id, r.channel.thread_id])).toEqual([
      [a.event_id, "chat-A", "T1"],
      [b.event_id, "chat-B", "T1"],
    ]);
    expect(sessionsCreated(stack)).toHaveLength(2);
    const [first, second] = promptSessions(stack);
    expect(first).not.toBe(second);
    expect(stack.records.filter((r) => r.msg === "session created").map((r) => r.sessionKey)).toEqual(["telegram:chat-A:T1", "telegram:chat-B:T1"]);
    // A second message in chat A's thread stays in chat A's session.
    stack.gateway.broadcast(userEvent("prose", inThread("chat-A", "T1")));
    await stack.replyCount(3);
    expect(sessionsCreated(stack)).toHaveLength(2);
    expect(promptSessions(stack)[2]).toBe(first);
  }, 60_000);

  it("/reset in one chat's thread leaves the same thread id in another chat alone", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("prose", inThread("chat-A", "T1")));
    await stack.replyCount(1);
    stack.gateway.broadcast(userEvent("prose", inThread("chat-B", "T1")));
    await stack.replyCount(2);
    const [, sessionB] = promptSessions(stack);
    stack.gateway.broadcast(userEvent("/reset", inThread("chat-A", "T1")));
    await stack.replyCount(3);
    expect(stack.records.find((r) => r.msg === "session reset")).toMatchObject({ sessionKey: "telegram:chat-A:T1", hadSession: true });
    stack.gateway.broadcast(userEvent("prose", inThread("chat-B", "T1")));
    await stack.replyCount(4);
    expect(promptSessions(stack)[2]).toBe(sessionB);
    expect(sessionsCreated(stack)).toHaveLength(2);
  }, 60_000);

  it("keeps a platform name with ':' apart from another platform's channel of the same spelling", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("prose", { platform: "a:b", channel: { id: "c", type: "dm" } }));
    await until(() => sessionsCreated(stack!).length === 1, 15_000);
    stack.gateway.broadcast(userEvent("prose", { platform: "a", channel: { id: "b:c", type: "dm" } }));
    expect(await until(() => sessionsCreated(stack!).length === 2, 15_000)).toBe(true);
    // The agent answers session/new before the broker logs it: wait for the second line too.
    const created = () => stack!.records.filter((r) => r.msg === "session created").map((r) => r.sessionKey);
    await until(() => created().length === 2, 15_000);
    expect(created()).toEqual(["a%3Ab:c:", "a:b%3Ac:"]);
  }, 60_000);
});
