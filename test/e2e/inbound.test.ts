import { afterEach, describe, expect, it } from "vitest";
import { startStack, until, userEvent, type Stack, stackBuses, useStackBus } from "../helpers/stack.js";

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

const prompts = (s: Stack) => s.agentEvents().filter((line) => line.startsWith("prompt "));

describe.each(stackBuses())("inbound redelivery dedupe end to end (%s bus)", (bus) => {
  useStackBus(bus);
  it("runs a message redelivered after a reconnect once (new event id, same message_id)", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("prose", { event_id: "evt-a", message_id: "m-1" }));
    await stack.replyCount(1);
    stack.gateway.disconnectAll();
    expect(await until(() => stack!.records.filter((r) => r.msg === "connected to gateway").length === 2, 15_000)).toBe(true);
    stack.gateway.broadcast(userEvent("prose", { event_id: "evt-b", message_id: "m-1" }));
    expect(await until(() => stack!.records.some((r) => r.msg === "redelivered message skipped"), 10_000)).toBe(true);
    expect(stack.records.find((r) => r.msg === "redelivered message skipped")).toMatchObject({ reason: "duplicate", event_id: "evt-b", message_id: "m-1" });
    expect(prompts(stack)).toHaveLength(1);
    expect(stack.replies).toHaveLength(1);
  });

  it("runs a redelivery again when the first turn failed (the key was released)", async () => {
    // Structured mode fails a turn whose agent errored (text mode delivers the ⚠️ text as the reply).
    stack = await startStack({ config: { delivery: { mode: "structured" } } });
    stack.gateway.broadcast(userEvent("crash", { event_id: "evt-a", message_id: "m-2" }));
    expect(await until(() => stack!.records.some((r) => r.msg === "turn failed"), 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("prose", { event_id: "evt-b", message_id: "m-2" }));
    expect(await until(() => prompts(stack!).length === 2, 10_000)).toBe(true);
  });

  it("never deduplicates a message without a message_id", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("prose", { event_id: "evt-a", message_id: "" }));
    stack.gateway.broadcast(userEvent("prose", { event_id: "evt-b", message_id: "" }));
    await stack.replyCount(2);
    expect(prompts(stack)).toHaveLength(2);
  });
});

describe.each(stackBuses())("inbound debounce end to end (%s bus)", (bus) => {
  useStackBus(bus);
  it("turns three quick messages into one turn with the merged text (debounce 1,000 ms)", async () => {
    stack = await startStack({ config: { inbound: { debounce_ms: 1_000 } } });
    stack.gateway.broadcast(userEvent("echo one", { message_id: "m-1" }));
    stack.gateway.broadcast(userEvent("two", { message_id: "m-2" }));
    stack.gateway.broadcast(userEvent("three", { message_id: "m-3" }));
    const [reply] = await stack.replyCount(1);
    // The scripted agent's echo scenario answers with the prompt's text blocks: the merged message is one of them.
    expect(reply?.content.text).toContain("echo one\ntwo\nthree");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(prompts(stack)).toHaveLength(1);
    expect(stack.replies).toHaveLength(1);
  });
});

describe.each(stackBuses())("silent replies end to end (text mode) (%s bus)", (bus) => {
  useStackBus(bus);
  it("delivers nothing for a bare NO_REPLY, and strips a trailing one", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("say NO_REPLY"));
    expect(await until(() => stack!.records.some((r) => r.msg === "silent reply: nothing delivered"), 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("say Sure. NO_REPLY"));
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("Sure.");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(stack.replies).toHaveLength(1);
  });

  it("treats NOTHING_TO_REPORT as the final line of a proactive turn as silence, but not of a human one", async () => {
    stack = await startStack();
    stack.gateway.broadcast(userEvent("say Checked 3 feeds.\\nNOTHING_TO_REPORT", { proactive: true }));
    expect(await until(() => stack!.records.some((r) => r.msg === "silent reply: nothing delivered"), 10_000)).toBe(true);
    expect(stack.records.find((r) => r.msg === "silent reply: nothing delivered")).toMatchObject({ reason: "nothing_to_report" });
    stack.gateway.broadcast(userEvent("say Checked 3 feeds.\\nNOTHING_TO_REPORT"));
    const [reply] = await stack.replyCount(1);
    expect(reply?.content.text).toBe("Checked 3 feeds.\nNOTHING_TO_REPORT");
  });
});

describe.each(stackBuses())("busy-session queue end to end (%s bus)", (bus) => {
  useStackBus(bus);
  it("collect: three messages during a slow turn become exactly one follow-up turn containing all three", async () => {
    stack = await startStack({ agentEnv: { SCENARIO: "echo" } });
    stack.gateway.broadcast(userEvent("slow 1500"));
    expect(await until(() => prompts(stack!).length === 1, 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("first thing"));
    stack.gateway.broadcast(userEvent("second thing"));
    stack.gateway.broadcast(userEvent("third thing"));
    const replies = await stack.replyCount(2, 20_000);
    expect(replies[0]?.content.text).toBe("slow done");
    const collected = replies[1]?.content.text ?? "";
    expect(collected).toContain("[Queued messages while agent was busy]");
    expect(collected).toContain("Queued #1 (from Ann)\nfirst thing");
    expect(collected).toContain("Queued #3 (from Ann)\nthird thing");
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(prompts(stack)).toHaveLength(2);
    expect(stack.replies).toHaveLength(2);
  });

  it("interrupt: the running turn is cancelled (the agent sees session/cancel) and the newest message runs", async () => {
    stack = await startStack({ config: { queue: { mode: "interrupt" } } });
    stack.gateway.broadcast(userEvent("slow 10000"));
    expect(await until(() => prompts(stack!).length === 1, 10_000)).toBe(true);
    stack.gateway.broadcast(userEvent("text"));
    stack.gateway.broadcast(userEvent("prose"));
    expect(await until(() => stack!.agentEvents().some((line) => line.startsWith("cancel ")), 10_000)).toBe(true);
    await until(() => stack!.replies.some((r) => r.content.text === "hey what's up"), 10_000);
    expect(stack.replies.map((r) => r.content.text)).toContain("hey what's up");
    expect(stack.replies.map((r) => r.content.text)).not.toContain("plain text reply, one message");
    expect(stack.records.find((r) => r.msg === "queued message dropped")).toMatchObject({ reason: "superseded" });
  });
});
