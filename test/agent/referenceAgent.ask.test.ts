import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, QuestionEvent } from "../../operators/delivery/agentEvent.js";
import { askAnswers, askTool, type AskInput } from "../../src/agent/askTool.js";
import { replyToolSpecs, useReplyToolHost } from "../helpers/replyToolHost.js";
import { calls, replyCall, says, type ScriptedCall } from "../helpers/fakeChatCompletions.js";
import { startAgent, type AgentHarness } from "./harness.js";

// The reference agent's `ask`: offered to the model when the session's `turnstream` MCP server
// lists it, and forwarded to that server — here the broker's real ReplyToolHost, reached through
// the real `turnstream mcp` relay the agent starts from the stdio entry. The test plays the turn
// that asks the person: it takes the question event and settles it.

let agent: AgentHarness | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});
const host = useReplyToolHost();

const input: AskInput = {
  questions: [
    { header: "Deploy", question: "Deploy to production now?", options: [{ label: "Yes", description: "ship it" }, { label: "No", description: "wait" }], multi_select: false },
    { header: "Notify", question: "Who should hear about it?", options: [{ label: "Team", description: "" }, { label: "Boss", description: "" }], multi_select: true },
  ],
};
const askCall = (id = "a1"): ScriptedCall => ({ name: "ask", arguments: input, id });
const toolNames = (tools: readonly { function: { name: string } }[] | undefined) => (tools ?? []).map((tool) => tool.function.name);

async function questionOf(events: AgentEvent[]): Promise<QuestionEvent> {
  await expect.poll(() => events.some((event) => event.type === "question"), { timeout: 15_000 }).toBe(true);
  const question = events.find((event): event is QuestionEvent => event.type === "question");
  if (question === undefined) throw new Error("no question");
  return question;
}

describe("turnstream agent: ask through the session's turnstream MCP server", () => {
  for (const [label, spec] of [
    ["text mode (the server offers only ask)", { ...replyToolSpecs.sequential, reply: false, askTimeoutMs: 60_000 }],
    ["structured mode (the server offers reply and ask)", { ...replyToolSpecs.structured, askTimeoutMs: 60_000 }],
  ] as const) {
    it(`${label}: the model's ask reaches the turn, and the answers come back as the tool result`, async () => {
      const { host: reply } = await host.start(spec);
      const offer = reply.offer("chat:c1:", { http: false });
      agent = await startAgent([calls(askCall()), calls(replyCall(["deploying now"]))]);
      const sessionId = await agent.newSession(offer.servers);
      const events = host.openTurn(reply, "chat:c1:");

      const prompt = agent.prompt(sessionId, "deploy it?");
      const question = await questionOf(events);
      expect(question).toMatchObject({ kind: "ask", timeoutMs: 60_000 });
      expect(question.questions.map((q) => [q.header, q.text, q.options.map((o) => o.label), q.multiSelect])).toEqual([
        ["Deploy", "Deploy to production now?", ["Yes", "No"], false],
        ["Notify", "Who should hear about it?", ["Team", "Boss"], true],
      ]);
      question.settle([
        { kind: "answered", chosen: [0], by: "Ann" },
        { kind: "answered", chosen: [0, 1], by: "Ann" },
      ]);

      expect(await prompt).toEqual({ stopReason: "end_turn" });
      const [first, second] = agent.fake.requests;
      expect(toolNames(first?.body.tools)).toEqual(["reply", "lookup", "ask"]);
      expect(first?.body.tools[2]).toStrictEqual(JSON.parse(JSON.stringify(askTool())));
      const toolMessage = second?.body.messages.at(-1);
      expect(toolMessage).toMatchObject({ role: "tool", tool_call_id: "a1" });
      expect(JSON.parse(toolMessage?.content ?? "")).toEqual(
        askAnswers(input, [
          { kind: "answered", chosen: [0], by: "Ann" },
          { kind: "answered", chosen: [0, 1], by: "Ann" },
        ]),
      );
      // The client saw the call as a tool call, completed with the answers.
      const updates = agent.updates(sessionId).map((params) => params?.update);
      expect(updates).toContainEqual(expect.objectContaining({ sessionUpdate: "tool_call", toolCallId: "a1", title: "ask", status: "in_progress" }));
      expect(updates).toContainEqual(expect.objectContaining({ sessionUpdate: "tool_call_update", toolCallId: "a1", status: "completed" }));
      expect(updates.at(-1)).toMatchObject({ sessionUpdate: "agent_message_chunk" });
    });
  }

  it("a question left unanswered comes back marked, and the model goes on", async () => {
    const { host: reply } = await host.start({ ...replyToolSpecs.structured, askTimeoutMs: 60_000 });
    const offer = reply.offer("chat:c2:", { http: false });
    agent = await startAgent([calls(askCall()), says("no answer, so I did nothing")]);
    const sessionId = await agent.newSession(offer.servers);
    const events = host.openTurn(reply, "chat:c2:");
    const prompt = agent.prompt(sessionId, "deploy it?");
    (await questionOf(events)).settle([{ kind: "timeout" }]);
    expect(await prompt).toEqual({ stopReason: "end_turn" });
    expect(JSON.parse(agent.fake.requests[1]?.body.messages.at(-1)?.content ?? "")).toEqual({
      answers: [
        { header: "Deploy", question: "Deploy to production now?", answered: false, reason: "timeout" },
        { header: "Notify", question: "Who should hear about it?", answered: false, reason: "cancelled" },
      ],
    });
  });

  it("session/cancel while the person has not answered: the prompt answers cancelled", async () => {
    const { host: reply } = await host.start({ ...replyToolSpecs.structured, askTimeoutMs: 60_000 });
    const offer = reply.offer("chat:c3:", { http: false });
    agent = await startAgent([calls(askCall())]);
    const sessionId = await agent.newSession(offer.servers);
    const events = host.openTurn(reply, "chat:c3:");
    const prompt = agent.prompt(sessionId, "deploy it?");
    await questionOf(events);
    agent.client.notify("session/cancel", { sessionId });
    expect(await prompt).toEqual({ stopReason: "cancelled" });
    expect(agent.fake.requests).toHaveLength(1);
  });

  it("no turn running on the broker's side: the refusal goes back to the model", async () => {
    const { host: reply } = await host.start({ ...replyToolSpecs.structured, askTimeoutMs: 60_000 });
    const offer = reply.offer("chat:c4:", { http: false });
    agent = await startAgent([calls(askCall()), calls(replyCall(["ok"]))]);
    const sessionId = await agent.newSession(offer.servers);
    expect(await agent.prompt(sessionId, "deploy it?")).toEqual({ stopReason: "end_turn" });
    expect(agent.fake.requests[1]?.body.messages.at(-1)?.content).toMatch(/^not asked: No turn of this conversation is running/);
    expect(agent.records.find((record) => record.msg === "ask tool call failed")).toMatchObject({ reason: "refused", sessionId });
  });

  it("a session offered no turnstream server, or one that cannot start, has no ask tool", async () => {
    agent = await startAgent([calls(askCall()), calls(replyCall(["ok"])), calls(replyCall(["still ok"]))]);
    const plain = await agent.newSession();
    expect(await agent.prompt(plain, "hi")).toEqual({ stopReason: "end_turn" });
    expect(toolNames(agent.fake.requests[0]?.body.tools)).toEqual(["reply", "lookup"]);
    expect(agent.fake.requests[1]?.body.messages.at(-1)?.content).toBe('there is no tool named "ask"; use reply or lookup');

    const broken = await agent.newSession([{ name: "turnstream", command: "/nonexistent/turnstream", args: ["mcp"], env: [] }]);
    expect(await agent.prompt(broken, "hi")).toEqual({ stopReason: "end_turn" });
    expect(toolNames(agent.fake.requests[2]?.body.tools)).toEqual(["reply", "lookup"]);
    expect(agent.records.find((record) => record.msg === "turnstream mcp server unavailable")).toMatchObject({ reason: "mcp_connect_failed", sessionId: broken });
  });
});
