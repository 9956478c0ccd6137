import { afterEach, describe, expect, it } from "vitest";
import { replyToolSchema } from "../../src/agent/replyTool.js";
import { binPath } from "../helpers/cli.js";
import { calls, FakeChatCompletions, lookupCall, replyCall, says, type ScriptStep } from "../helpers/fakeChatCompletions.js";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";

// The whole path: a real dev gateway (WebSocket), the broker, `turnstream agent` as its ACP agent
// process (the built CLI), and a local fake chat-completions server playing the model.

let stack: Stack | undefined;
let fake: FakeChatCompletions | undefined;
afterEach(async () => {
  await stack?.stop();
  await fake?.close();
  stack = undefined;
  fake = undefined;
});

type Delivery = "text" | "structured" | "sequential";
type ReplyMode = "envelope" | "sequential";

async function run(delivery: Delivery, script: ScriptStep[], mode: ReplyMode = delivery === "sequential" ? "sequential" : "envelope"): Promise<{ stack: Stack; fake: FakeChatCompletions }> {
  fake = await FakeChatCompletions.start(script);
  stack = await startStack({
    config: {
      delivery: { mode: delivery, bubble_delay_ms: 0 },
      agent: {
        command: process.execPath,
        args: [binPath, "agent"],
        env: {
          TURNSTREAM_AGENT_BASE_URL: fake.url,
          TURNSTREAM_AGENT_MODEL: "fake-model",
          TURNSTREAM_AGENT_MODE: mode,
        },
      },
    },
  });
  return { stack, fake };
}

const texts = (s: Stack) => s.replies.map((reply) => reply.content.text);
const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

describe("end to end: broker in structured mode + turnstream agent in envelope mode", () => {
  it("a reply call with three messages becomes three bubbles, in order", async () => {
    const { stack, fake } = await run("structured", [calls(replyCall(["on it", "your flight moved to 8pm", "gate B12"]))]);
    stack.gateway.broadcast(userEvent("where is my flight?"));
    await stack.replyCount(3);
    await settle();
    expect(texts(stack)).toEqual(["on it", "your flight moved to 8pm", "gate B12"]);
    const request = fake.requests[0]?.body;
    expect(request?.tools[0]?.function.parameters).toStrictEqual(replyToolSchema({ mode: "envelope", maxBubbles: 4, maxBubbleChars: 1200 }));
    expect(request?.messages.at(-1)?.content).toContain("where is my flight?");
  });

  it("next silent: nothing is sent and the turn completes", async () => {
    const { stack } = await run("structured", [calls(replyCall([], { next: "silent" }))]);
    stack.gateway.broadcast(userEvent("routine update"));
    expect(await until(() => stack.records.some((record) => record.msg === "turn complete"), 15_000)).toBe(true);
    await settle();
    expect(stack.replies).toHaveLength(0);
  });

  it("a model that answers in plain text gives one bubble", async () => {
    const { stack } = await run("structured", [says("sure — see you at 8\nbring the tickets")]);
    stack.gateway.broadcast(userEvent("hi"));
    await stack.replyCount(1);
    await settle();
    expect(texts(stack)).toEqual(["sure — see you at 8\nbring the tickets"]);
  });
});

describe("end to end: broker in sequential mode + turnstream agent in sequential mode", () => {
  it("two reply calls separated by a lookup become two bubbles, each sent when its call happens", async () => {
    /** A step that answers only once `count` bubbles reached the gateway: proof they left mid-turn. */
    const once = (count: number, response: ScriptStep): ScriptStep => async (request) => {
      if (!(await until(() => (stack?.replies.length ?? 0) >= count, 10_000))) {
        return { status: 500, body: `bubble ${count} had not reached the gateway while the turn ran` };
      }
      return typeof response === "function" ? response(request) : response;
    };
    const { stack, fake } = await run("sequential", [
      calls(replyCall(["on it"], {}, "r1")),
      once(1, calls(lookupCall("flight", "l1"))),
      calls(replyCall(["your flight moved to 8pm\ngate B12"], {}, "r2")),
      once(2, says("told them")),
    ]);
    stack.gateway.broadcast(userEvent("where is my flight?"));
    expect(await until(() => stack.records.some((record) => record.msg === "turn complete" || record.msg === "turn failed"), 20_000)).toBe(true);
    await settle();
    expect(stack.records.some((record) => record.msg === "turn failed")).toBe(false);
    expect(texts(stack)).toEqual(["on it", "your flight moved to 8pm\ngate B12"]);
    expect(fake.requests).toHaveLength(4);
    expect(fake.requests[2]?.body.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "l1", content: expect.stringContaining("gate B12") });
  });
});

// docs/agents.md's pairing table: the combinations that must not ship, failing as it says.
describe("end to end: the pairings that must not ship", () => {
  const envelopeJson = '{"schema":"openab.turn.v1","messages":[{"id":"bubble_1","text":"on it"}],"next":{"type":"stop"}}';

  async function onlyReply(delivery: Delivery, mode: ReplyMode, script: ScriptStep[]): Promise<string[]> {
    const { stack } = await run(delivery, script, mode);
    stack.gateway.broadcast(userEvent("hi"));
    await stack.replyCount(1);
    await settle();
    return texts(stack);
  }

  it("text broker + envelope agent: the user receives the raw envelope", async () => {
    expect(await onlyReply("text", "envelope", [calls(replyCall(["on it"]))])).toEqual([envelopeJson]);
  });

  it("sequential broker + envelope agent: the text fallback delivers the raw envelope", async () => {
    expect(await onlyReply("sequential", "envelope", [calls(replyCall(["on it"]))])).toEqual([envelopeJson]);
  });

  it("text broker + sequential agent: the bubbles are ignored and the user gets _(no response)_", async () => {
    expect(await onlyReply("text", "sequential", [calls(replyCall(["on it"])), says("")])).toEqual(["_(no response)_"]);
  });

  it("structured broker + sequential agent: the bubbles are ignored and the user gets parse_error_text", async () => {
    expect(await onlyReply("structured", "sequential", [calls(replyCall(["on it"])), says("")])).toEqual(["⚠️ something went wrong composing that reply"]);
  });

  it("structured broker + sequential agent: a silent turn's token arrives verbatim", async () => {
    expect(await onlyReply("structured", "sequential", [says("")])).toEqual(["NO_REPLY"]);
  });
});
