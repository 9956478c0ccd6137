import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { codexAcpAvailable, codexAgent, codexAgentConfig, type CodexAgent } from "../helpers/codexAcp.js";
import { callsTool, FakeResponsesApi, findTool, says, stops, type ResponsesRequest } from "../helpers/fakeResponsesApi.js";
import { startStack, until, userEvent, type Stack } from "../helpers/stack.js";

// Codex starts in well under 2 s here; every bound leaves room for a loaded CI machine.
const perTestMs = 90_000;
const replyWaitMs = 45_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const gaps = (times: readonly number[]) => times.slice(1).map((time, index) => time - times[index]!);

/** The text of the `function_call_output` items a request sends back to the model. */
const toolOutputs = (request: ResponsesRequest | undefined): string[] =>
  (request?.body.input ?? []).flatMap((item) => (item.type === "function_call_output" ? [String(item.output)] : []));

// The whole path with the real codex-acp (pinned in devDependencies) run offline against a local
// fake Responses API: a dev gateway's event → the broker → codex, which runs the `reply` tool of
// the `turnstream` MCP server the broker offered its session → bubbles at the gateway. The
// embedded bus is enough: the buses are covered by test/e2e/replyTool.test.ts.
describe.skipIf(!codexAcpAvailable())("codex-acp through the broker with the reply tool", () => {
  let fake: FakeResponsesApi;
  let codex: CodexAgent;
  let stack: Stack | undefined;

  beforeEach(async () => {
    fake = await FakeResponsesApi.start();
    codex = codexAgent(fake.url);
    stack = undefined;
  });

  afterEach(async () => {
    await stack?.stop();
    await fake.close();
    codex.cleanup();
  });

  async function run(delivery: Record<string, unknown>, text: string) {
    const workingDir = join(codex.home, "work");
    mkdirSync(workingDir);
    const started = await startStack({ config: { delivery, agent: codexAgentConfig(codex, workingDir) } });
    stack = started;
    const arrivals: number[] = [];
    started.gateway.received.subscribe((frame) => frame.kind === "reply" && frame.frame.command === undefined && arrivals.push(performance.now()));
    started.gateway.broadcast(userEvent(text));
    return { stack: started, arrivals };
  }

  /** Why codex did what it did, for a failure message. */
  const agentStderr = (s: Stack) => s.records.filter((record) => record.msg === "agent stderr").map((record) => record.line).join("\n");
  const turnComplete = (s: Stack) => until(() => s.records.some((record) => record.msg === "turn complete"), replyWaitMs);

  /**
   * No reply carries the envelope's JSON, a tool's name, the model key or anything shaped like a
   * reply tool secret (32 random bytes, base64url: 43 characters). Codex takes the HTTP server
   * (it advertises `mcpCapabilities.http`), so the secret lives only in its memory and the test
   * cannot read it; the shape stands in for it.
   */
  function expectCleanReplies(s: Stack): void {
    for (const reply of s.replies) {
      expect(reply.content.text).not.toMatch(/[{}]|"messages"|mcp__|turnstream__|reply_tool|Bearer/);
      expect(reply.content.text).not.toMatch(/[A-Za-z0-9_-]{40,}/);
      expect(reply.content.text).not.toContain("sk-turnstream-fake");
    }
    expect(JSON.stringify(s.records)).not.toContain("sk-turnstream-fake");
  }

  it("structured: one reply call with three messages → exactly those three bubbles, paced and acked", async () => {
    fake.push(callsTool("reply", { messages: ["on it", "your flight moved to 8pm", "gate B12"] }), says("All three are on their way."));
    const { stack, arrivals } = await run({ mode: "structured", bubble_delay_ms: 400 }, "where is my flight?");

    const replies = await stack.replyCount(3, replyWaitMs).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${agentStderr(stack)}`);
    });
    expect(await turnComplete(stack)).toBe(true);
    await sleep(500);

    expect(replies.map((reply) => reply.content.text)).toEqual(["on it", "your flight moved to 8pm", "gate B12"]);
    // Every send asked for an ack (the dev gateway acks those) and all were acked.
    for (const reply of replies) expect(reply.request_id).toMatch(/^req_/);
    expect(stack.records.find((record) => record.msg === "structured turn delivered")).toMatchObject({ bubbles: 3 });
    for (const gap of gaps(arrivals)) expect(gap).toBeGreaterThanOrEqual(350), expect(gap).toBeLessThan(3_000);
    // The model's text after the tool's result was not delivered, nor anything else.
    expect(stack.replies).toHaveLength(3);
    expect(stack.records.find((record) => record.msg === "reply tool called")).toMatchObject({ mode: "structured", messages: 3 });
    expect(stack.records.filter((record) => record.msg === "reply tool call refused")).toEqual([]);
    // The tool came from the broker's own `turnstream` server, and codex asked before running it.
    expect(findTool(fake.requests[0]!, "reply", "turnstream")).toBeDefined();
    expect(stack.records.filter((record) => record.msg === "auto-respond permission")).toMatchObject([{ mode: "allow_always" }]);
    // Codex got the tool's "recorded" answer and then ended its turn.
    expect(fake.requests).toHaveLength(2);
    expect(toolOutputs(fake.requests[1])).toEqual([expect.stringContaining("Recorded: 3 messages")]);
    expectCleanReplies(stack);
  }, perTestMs);

  it("sequential: each reply call's message goes out on arrival, mid-turn, and codex is told it was delivered", async () => {
    let secondAnsweredAt = Number.POSITIVE_INFINITY;
    const second = callsTool("reply", { messages: ["your flight moved to 8pm"] });
    fake.push(callsTool("reply", { messages: ["on it"] }), async (request) => {
      // The model "thinks" after the first message; it must be on the chat already.
      await sleep(1_500);
      secondAnsweredAt = performance.now();
      return typeof second === "function" ? second(request) : second;
    }, stops());
    const { stack, arrivals } = await run({ mode: "sequential", bubble_delay_ms: 400 }, "where is my flight?");

    const replies = await stack.replyCount(2, replyWaitMs).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${agentStderr(stack)}`);
    });
    expect(await turnComplete(stack)).toBe(true);
    await sleep(500);

    expect(replies.map((reply) => reply.content.text)).toEqual(["on it", "your flight moved to 8pm"]);
    for (const reply of replies) expect(reply.request_id).toMatch(/^req_/);
    // The first bubble was out before the model's next request was answered: sent on arrival.
    expect(arrivals[0]!).toBeLessThan(secondAnsweredAt);
    expect(gaps(arrivals)[0]!).toBeGreaterThanOrEqual(1_400);
    expect(stack.replies).toHaveLength(2);
    expect(findTool(fake.requests[0]!, "reply", "turnstream")).toBeDefined();
    // Each call's result, seen by the model in its next request, says its message was delivered.
    expect(fake.requests).toHaveLength(3);
    expect(toolOutputs(fake.requests[1])).toEqual([expect.stringContaining("Delivered 1 message.")]);
    expect(toolOutputs(fake.requests[2]).at(-1)).toContain("Delivered 1 message.");
    expect(stack.records.filter((record) => record.msg === "reply tool called")).toMatchObject([
      { mode: "sequential", messages: 1 },
      { mode: "sequential", messages: 1 },
    ]);
    expect(stack.records.find((record) => record.msg === "sequential turn delivered")).toMatchObject({ delivered: 2 });
    expect(stack.records.filter((record) => record.msg === "reply tool call refused")).toEqual([]);
    expectCleanReplies(stack);
  }, perTestMs);

  it("text: no reply tool offered, and the model's text is delivered as one message", async () => {
    fake.push(says("your flight moved to 8pm"));
    const { stack } = await run({ mode: "text" }, "where is my flight?");

    const replies = await stack.replyCount(1, replyWaitMs).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${agentStderr(stack)}`);
    });
    expect(await turnComplete(stack)).toBe(true);
    await sleep(500);

    expect(replies.map((reply) => reply.content.text)).toEqual(["your flight moved to 8pm"]);
    expect(stack.replies).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
    expect(findTool(fake.requests[0]!, "reply")).toBeUndefined();
    expectCleanReplies(stack);
  }, perTestMs);
});
