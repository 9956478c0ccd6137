import { afterEach, describe, expect, it } from "vitest";
import { binPath } from "../helpers/cli.js";
import { calls, FakeChatCompletions, replyCall, type ScriptStep } from "../helpers/fakeChatCompletions.js";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";

// Issue 41 through the whole path: a real dev gateway (WebSocket), the broker, `turnstream agent`
// (the built CLI) as its ACP agent, and a fake chat-completions server playing a model that calls
// `ask`. The agent forwards the call to the session's `turnstream` MCP server (the `turnstream mcp`
// relay it starts), the broker asks in the chat (the gateway has no buttons: a numbered list), and
// the person's answer comes back to the model as the tool result.

let stack: Stack | undefined;
let fake: FakeChatCompletions | undefined;
afterEach(async () => {
  await stack?.stop();
  await fake?.close();
  stack = undefined;
  fake = undefined;
});

const deploy = {
  questions: [
    { header: "Deploy", question: "Deploy to production now?", options: [{ label: "Yes", description: "ship it" }, { label: "No", description: "wait" }], multi_select: false },
  ],
};

async function run(script: ScriptStep[], agent: Record<string, unknown> = {}): Promise<{ stack: Stack; fake: FakeChatCompletions }> {
  fake = await FakeChatCompletions.start(script);
  stack = await startStack({
    config: {
      delivery: { mode: "structured", bubble_delay_ms: 0 },
      agent: {
        command: process.execPath,
        args: [binPath, "agent"],
        env: { TURNSTREAM_AGENT_BASE_URL: fake.url, TURNSTREAM_AGENT_MODEL: "fake-model", TURNSTREAM_AGENT_MODE: "envelope" },
        ...agent,
      },
    },
  });
  return { stack, fake };
}

/** The tool result the model got for its `ask` call, parsed. */
const askResult = (f: FakeChatCompletions) => JSON.parse(f.requests[1]?.body.messages.find((m) => m.role === "tool" && m.tool_call_id === "ask1")?.content ?? "null") as unknown;

describe("end to end: turnstream agent's ask, answered in the chat", () => {
  it('the model asks, the chat shows the numbered question, the requester answers "1", and the model hears "Yes" from Ann', async () => {
    const { stack, fake } = await run([calls({ name: "ask", arguments: deploy, id: "ask1" }), calls(replyCall(["deploying now"]))]);
    const asking = userEvent("ship the release?");
    stack.gateway.broadcast(asking);
    const [question] = await stack.replyCount(1, 20_000);
    expect(question?.content.text).toContain("Deploy to production now?");
    expect(question?.content.text).toContain("1. Yes");
    expect(question?.content.text).toContain("2. No");

    stack.gateway.broadcast(userEvent("1"));
    expect(await until(() => stack.replies.some((reply) => reply.content.text === "deploying now"), 20_000)).toBe(true);
    expect(askResult(fake)).toEqual({ answers: [{ header: "Deploy", question: "Deploy to production now?", answered: true, selected: ["Yes"], answered_by: "Ann" }] });
    expect(fake.requests[0]?.body.tools.map((tool) => tool.function.name)).toContain("ask");
    // The answer started no turn of its own: the model was asked twice, both in the first turn.
    expect(await until(() => stack.records.some((record) => record.msg === "turn complete" && record.event_id === asking.event_id), 15_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fake.requests).toHaveLength(2);
  });

  it("nobody answers within ask_timeout_secs: the model hears the question went unanswered", async () => {
    const { stack, fake } = await run([calls({ name: "ask", arguments: deploy, id: "ask1" }), calls(replyCall(["ok, not deploying"]))], { ask_timeout_secs: 1 });
    stack.gateway.broadcast(userEvent("ship the release?"));
    expect(await until(() => stack.replies.some((reply) => reply.content.text === "ok, not deploying"), 25_000)).toBe(true);
    expect(askResult(fake)).toEqual({ answers: [{ header: "Deploy", question: "Deploy to production now?", answered: false, reason: "timeout" }] });
  });
});
