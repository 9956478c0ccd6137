import { afterEach, describe, expect, it } from "vitest";
import { parseEnvelope } from "../../operators/delivery/envelope/envelope.js";
import { replyPromptAppendix } from "../../src/agent/replyPrompt.js";
import { replyToolSchema } from "../../src/agent/replyTool.js";
import { calls, lookupCall, replyCall, says } from "../helpers/fakeChatCompletions.js";
import { startAgent, type AgentHarness } from "./harness.js";

let agent: AgentHarness | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** The turn's text as the broker sees it: every agent_message_chunk of the session, concatenated. */
function turnText(harness: AgentHarness, sessionId: string): string {
  return harness
    .updates(sessionId)
    .filter((params) => params?.update.sessionUpdate === "agent_message_chunk")
    .map((params) => (params?.update.content as { text: string }).text)
    .join("");
}

/** The bubbles a broker in structured mode would send for the turn. */
function brokerBubbles(harness: AgentHarness, sessionId: string): string[] | "silent" {
  const parsed = parseEnvelope(turnText(harness, sessionId), { schema: "openab.turn.v1", maxBubbles: 4, maxBubbleChars: 1200 });
  if (!parsed.ok) throw new Error(parsed.error.display);
  return parsed.plan.next.type === "silent" ? "silent" : parsed.plan.bubbles.map((bubble) => bubble.text);
}

describe("reference agent, envelope mode", () => {
  it("a reply call with three messages becomes one envelope chunk with three bubbles, then end_turn", async () => {
    agent = await startAgent([calls(replyCall(["on it", "your flight moved to 8pm", "gate B12"]))]);
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "where is my flight?")).toEqual({ stopReason: "end_turn" });
    expect(agent.updates(sessionId)).toHaveLength(1);
    expect(JSON.parse(turnText(agent, sessionId))).toStrictEqual({
      schema: "openab.turn.v1",
      messages: [
        { id: "bubble_1", text: "on it" },
        { id: "bubble_2", text: "your flight moved to 8pm" },
        { id: "bubble_3", text: "gate B12" },
      ],
      next: { type: "stop" },
    });
    expect(brokerBubbles(agent, sessionId)).toEqual(["on it", "your flight moved to 8pm", "gate B12"]);
  });

  it("sends the model the system prompt with the appendix, the prompt text, and the reply and lookup tools", async () => {
    agent = await startAgent([calls(replyCall(["hi"]))], { maxBubbles: 3 });
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "hello");
    const body = agent.fake.requests[0]?.body;
    expect(body?.model).toBe("fake-model");
    expect(body?.messages).toEqual([
      { role: "system", content: `You are a test agent.\n\n${replyPromptAppendix({ mode: "envelope", maxBubbles: 3, maxBubbleChars: 1200 })}` },
      { role: "user", content: "hello" },
    ]);
    expect(body?.tools.map((tool) => tool.function.name)).toEqual(["reply", "lookup"]);
    expect(body?.tools[0]?.function.parameters).toStrictEqual(replyToolSchema({ mode: "envelope", maxBubbles: 3, maxBubbleChars: 1200 }));
  });

  it("next silent: a silent envelope, so the broker sends nothing", async () => {
    agent = await startAgent([calls(replyCall([], { next: "silent" }))]);
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "routine event")).toEqual({ stopReason: "end_turn" });
    expect(JSON.parse(turnText(agent, sessionId))).toStrictEqual({ schema: "openab.turn.v1", messages: [], next: { type: "silent" } });
    expect(brokerBubbles(agent, sessionId)).toBe("silent");
  });

  it("a plain-text answer is wrapped as a one-bubble envelope", async () => {
    agent = await startAgent([says("sure — see you at 8\nbring the tickets")]);
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
    expect(brokerBubbles(agent, sessionId)).toEqual(["sure — see you at 8\nbring the tickets"]);
  });

  it("a plain answer too long for one bubble goes back to the model, which then splits it through reply", async () => {
    agent = await startAgent([says(`${"a".repeat(15)} ${"b".repeat(15)}`), calls(replyCall(["a".repeat(15), "b".repeat(15)]))], { maxBubbleChars: 20 });
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "tell me")).toEqual({ stopReason: "end_turn" });
    expect(agent.fake.requests[1]?.body.messages.at(-1)).toEqual({
      role: "user",
      content: "Your answer was not delivered: it is 31 characters, over the 20-character limit for one message. Send it with the reply tool instead, split between sentences into several messages.",
    });
    expect(brokerBubbles(agent, sessionId)).toEqual(["a".repeat(15), "b".repeat(15)]);
    expect(agent.records.find((record) => record.msg === "plain answer too long for one bubble")).toMatchObject({ reason: "too_long", max_bubble_chars: 20 });
  });

  it("a reply message over the per-message limit is rejected back to the model", async () => {
    agent = await startAgent([calls(replyCall(["x".repeat(21)], {}, "c1")), calls(replyCall(["short"]))], { maxBubbleChars: 20 });
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "x");
    expect(agent.fake.requests[1]?.body.messages.at(-1)?.content).toBe(
      "not sent: message 1 is 21 characters, over the 20-character limit per message; shorten it or split it between sentences. Call reply again with a corrected input.",
    );
    expect(brokerBubbles(agent, sessionId)).toEqual(["short"]);
  });

  it("an empty plain answer sends nothing", async () => {
    agent = await startAgent([says("")]);
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "hi")).toEqual({ stopReason: "end_turn" });
    expect(agent.updates(sessionId)).toEqual([]);
  });

  it("a rejected reply goes back to the model as the tool result; its corrected reply is sent", async () => {
    agent = await startAgent([calls(replyCall(["1", "2", "3", "4", "5"], {}, "call_big")), calls(replyCall(["1-2", "3-5"]))]);
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "count")).toEqual({ stopReason: "end_turn" });
    expect(agent.fake.requests[1]?.body.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_big",
      content: "not sent: reply tool returned 5 messages, over the 4 cap. Call reply again with a corrected input.",
    });
    expect(brokerBubbles(agent, sessionId)).toEqual(["1-2", "3-5"]);
    expect(agent.records.find((record) => record.msg === "reply tool input rejected")).toMatchObject({ reason: "over_cap", sessionId });
  });

  it("malformed arguments and an empty non-silent reply are fed back too", async () => {
    agent = await startAgent([
      calls({ name: "reply", arguments: '{"messages": ["cut' }),
      calls(replyCall(["  "])),
      calls(replyCall(["ok"])),
    ]);
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "x");
    expect(agent.fake.requests[1]?.body.messages.at(-1)?.content).toContain("not sent: the tool arguments are not valid JSON");
    expect(agent.fake.requests[2]?.body.messages.at(-1)?.content).toContain("not sent: reply tool returned no messages");
    expect(brokerBubbles(agent, sessionId)).toEqual(["ok"]);
    expect(agent.records.filter((record) => record.msg === "reply tool input rejected").map((record) => record.reason)).toEqual(["malformed", "empty_turn"]);
  });

  it("an unknown next is sent as stop, with a warning", async () => {
    agent = await startAgent([calls(replyCall(["hi"], { next: "escalate" }))]);
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "x");
    expect(JSON.parse(turnText(agent, sessionId)).next).toEqual({ type: "stop" });
    expect(agent.records.some((record) => record.msg === "reply tool returned an unknown next; treating it as stop" && record.reason === "unknown_next")).toBe(true);
  });

  it("a lookup runs first (reported as an ACP tool call), then the reply ends the turn", async () => {
    agent = await startAgent([calls(lookupCall("flight", "call_look")), calls(replyCall(["your flight moved to 8pm\ngate B12"]))]);
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "flight?");
    expect(agent.fake.requests[1]?.body.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_look", content: "Flight TS 123 to Lisbon: departure moved to 20:00, gate B12." });
    expect(agent.updates(sessionId).map((params) => params?.update.sessionUpdate)).toEqual(["tool_call", "tool_call_update", "agent_message_chunk"]);
    expect(agent.updates(sessionId)[1]?.update).toMatchObject({ toolCallId: "call_look", status: "completed" });
    expect(brokerBubbles(agent, sessionId)).toEqual(["your flight moved to 8pm\ngate B12"]);
  });

  it("the first valid reply ends the turn: later calls in the same answer are not run", async () => {
    agent = await startAgent([calls(replyCall(["first"], {}, "c1"), lookupCall("flight", "c2"), replyCall(["second"], {}, "c3")), says("unused")]);
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "x");
    expect(agent.fake.requests).toHaveLength(1);
    expect(brokerBubbles(agent, sessionId)).toEqual(["first"]);
    expect(agent.updates(sessionId)).toHaveLength(1);
  });

  it("remembers the conversation: the next turn carries the last one, every tool call answered", async () => {
    agent = await startAgent([calls(replyCall(["noted"], {}, "c1")), says("you said hi")]);
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "hi");
    await agent.prompt(sessionId, "what did I say?");
    const history = agent.fake.requests[1]?.body.messages.slice(1);
    expect(history).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "reply", arguments: '{"messages":["noted"]}' } }] },
      { role: "tool", tool_call_id: "c1", content: "delivered 1 message(s) to the user; your turn is over." },
      { role: "user", content: "what did I say?" },
    ]);
  });

  it("sessions do not share history", async () => {
    agent = await startAgent([says("one"), says("two")]);
    const first = await agent.newSession();
    const second = await agent.newSession();
    await agent.prompt(first, "to first");
    await agent.prompt(second, "to second");
    expect(agent.fake.requests[1]?.body.messages.map((message) => message.content)).toEqual([expect.any(String), "to second"]);
  });

  it("gives up after max steps with max_turn_requests, and sends nothing", async () => {
    agent = await startAgent([calls(lookupCall("a")), calls(lookupCall("b")), calls(lookupCall("c"))], { maxSteps: 2 });
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "loop")).toEqual({ stopReason: "max_turn_requests" });
    expect(agent.fake.requests).toHaveLength(2);
    expect(agent.updates(sessionId).filter((params) => params?.update.sessionUpdate === "agent_message_chunk")).toEqual([]);
    expect(agent.records.find((record) => record.msg === "turn step limit reached")).toMatchObject({ reason: "max_steps", steps: 2 });
  });

  it("an unknown tool is answered with a note to the model", async () => {
    agent = await startAgent([calls({ name: "send_email", arguments: {}, id: "c1" }), calls(replyCall(["done"]))]);
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "x");
    expect(agent.fake.requests[1]?.body.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "c1", content: 'there is no tool named "send_email"; use reply or lookup' });
    expect(agent.records.find((record) => record.msg === "unknown tool called")).toMatchObject({ tool: "send_email" });
  });
});
