import { afterEach, describe, expect, it } from "vitest";
import { replyToolSchema } from "../../src/agent/replyTool.js";
import { calls, lookupCall, replyCall, says } from "../helpers/fakeChatCompletions.js";
import { startAgent, type AgentHarness } from "./harness.js";

let agent: AgentHarness | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** The session's updates as short strings: `bubble_1: text`, `tool_call`, `chunk: text`. */
function timeline(harness: AgentHarness, sessionId: string): string[] {
  return harness.updates(sessionId).map((params) => {
    const update = params?.update ?? { sessionUpdate: "none" };
    const text = (update.content as { text?: string } | undefined)?.text;
    if (update.sessionUpdate === "openab_message") return `${String(update.id)}: ${text}`;
    if (update.sessionUpdate === "agent_message_chunk") return `chunk: ${text}`;
    return update.sessionUpdate;
  });
}

describe("reference agent, sequential mode", () => {
  it("each reply call goes out at once as openab_message bubbles; the model keeps working until it stops calling tools", async () => {
    let bubblesWhenLookupAsked: string[] = [];
    agent = await startAgent(
      [
        calls(replyCall(["on it"], {}, "r1")),
        () => {
          bubblesWhenLookupAsked = timeline(agent as AgentHarness, sessionId);
          return calls(lookupCall("flight", "l1"));
        },
        calls(replyCall(["your flight moved to 8pm\ngate B12"], {}, "r2")),
        says("All done, I told them."),
      ],
      { mode: "sequential" },
    );
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "flight?")).toEqual({ stopReason: "end_turn" });
    // The first bubble was written before the model was asked for its next step.
    expect(bubblesWhenLookupAsked).toEqual(["bubble_1: on it"]);
    expect(timeline(agent, sessionId)).toEqual(["bubble_1: on it", "tool_call", "tool_call_update", "bubble_2: your flight moved to 8pm\ngate B12"]);
    const requests = agent.fake.requests.map((request) => request.body.messages.at(-1));
    expect(requests[1]).toEqual({ role: "tool", tool_call_id: "r1", content: "delivered 1 of 1 message(s) to the user." });
    expect(requests[2]).toMatchObject({ role: "tool", tool_call_id: "l1", content: expect.stringContaining("gate B12") });
    expect(requests[3]).toEqual({ role: "tool", tool_call_id: "r2", content: "delivered 1 of 1 message(s) to the user." });
    expect(agent.records.find((record) => record.msg === "closing text not delivered")).toMatchObject({ reason: "already_replied" });
  });

  it("offers the reply tool without next", async () => {
    agent = await startAgent([says("hi")], { mode: "sequential" });
    await agent.prompt(await agent.newSession(), "x");
    expect(agent.fake.requests[0]?.body.tools[0]?.function.parameters).toStrictEqual(replyToolSchema({ mode: "sequential", maxBubbles: 4 }));
    expect(agent.fake.requests[0]?.body.messages[0]?.content).toContain("do not call `reply`");
  });

  it("the per-turn cap cuts a reply short and the tool result says exactly what was delivered", async () => {
    agent = await startAgent(
      [calls(replyCall(["one", "two"], {}, "r1")), calls(replyCall(["three", "four"], {}, "r2")), says("")],
      { mode: "sequential", maxBubbles: 3 },
    );
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "count")).toEqual({ stopReason: "end_turn" });
    expect(timeline(agent, sessionId)).toEqual(["bubble_1: one", "bubble_2: two", "bubble_3: three"]);
    expect(agent.fake.requests[2]?.body.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "r2",
      content: 'delivered 1 of 2 message(s) to the user: ["three"]. NOT delivered: ["four"], because this turn reached its limit of 3 message(s). Do not call reply again this turn.',
    });
    expect(agent.records.find((record) => record.msg === "reply cut short at max_bubbles")).toMatchObject({ reason: "max_bubbles", delivered: 3, dropped: 1, max_bubbles: 3 });
  });

  it("a plain-text answer with no reply is sent as one bubble", async () => {
    agent = await startAgent([says("  the answer is 42  ")], { mode: "sequential" });
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "x");
    expect(timeline(agent, sessionId)).toEqual(["bubble_1: the answer is 42"]);
  });

  it("no reply and no text: the broker's silent token, so a sequential broker sends nothing", async () => {
    agent = await startAgent([says("")], { mode: "sequential" });
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "routine event");
    expect(timeline(agent, sessionId)).toEqual(["chunk: NO_REPLY"]);
  });

  it("a malformed reply is fed back; blank messages are dropped", async () => {
    agent = await startAgent([calls(replyCall(["", "hi", " "], {}, "r1"), { name: "reply", arguments: { messages: [1] }, id: "r2" }), says("")], { mode: "sequential" });
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "x");
    expect(timeline(agent, sessionId)).toEqual(["bubble_1: hi"]);
    expect(agent.fake.requests[1]?.body.messages.slice(-2)).toEqual([
      { role: "tool", tool_call_id: "r1", content: "delivered 1 of 1 message(s) to the user." },
      { role: "tool", tool_call_id: "r2", content: "not sent: `messages[0]` must be a string. Call reply again with a corrected input." },
    ]);
  });

  it("bubble numbering restarts each turn", async () => {
    agent = await startAgent([calls(replyCall(["a"])), says(""), calls(replyCall(["b"])), says("")], { mode: "sequential" });
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "1");
    await agent.prompt(sessionId, "2");
    expect(timeline(agent, sessionId)).toEqual(["bubble_1: a", "bubble_1: b"]);
  });
});
