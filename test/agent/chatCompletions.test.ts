import { afterEach, describe, expect, it } from "vitest";
import { assistantMessageFrom, chatCompletions } from "../../src/agent/chatCompletions.js";
import { ModelRequestError } from "../../src/agent/errors.js";
import { replyTool } from "../../src/agent/replyTool.js";
import { calls, FakeChatCompletions, replyCall, says } from "../helpers/fakeChatCompletions.js";

let fake: FakeChatCompletions | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const tools = [replyTool({ mode: "envelope", maxBubbles: 4 })];
const messages = [{ role: "user" as const, content: "hi" }];
const never = new AbortController().signal;

async function failure(promise: Promise<unknown>): Promise<ModelRequestError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ModelRequestError);
  return error as ModelRequestError;
}

describe("chatCompletions (against a local fake server)", () => {
  it("posts model, messages, tools and the key to <base>/chat/completions", async () => {
    fake = await FakeChatCompletions.start([says("hello")]);
    const model = chatCompletions({ baseUrl: `${fake.url}/`, model: "gpt-test", apiKey: "sk-test", timeoutMs: 5_000 });
    expect(await model.complete(messages, tools, never)).toStrictEqual({ role: "assistant", content: "hello" });
    const [request] = fake.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-test");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body).toMatchObject({ model: "gpt-test", messages, tools, tool_choice: "auto" });
  });

  it("sends no authorization header without a key", async () => {
    fake = await FakeChatCompletions.start([says("hello")]);
    await chatCompletions({ baseUrl: fake.url, model: "m", timeoutMs: 5_000 }).complete(messages, tools, never);
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("returns tool calls with their ids and argument strings", async () => {
    fake = await FakeChatCompletions.start([calls(replyCall(["a"], { next: "stop" }, "call_x"))]);
    const message = await chatCompletions({ baseUrl: fake.url, model: "m", timeoutMs: 5_000 }).complete(messages, tools, never);
    expect(message.tool_calls).toStrictEqual([{ id: "call_x", type: "function", function: { name: "reply", arguments: '{"messages":["a"],"next":"stop"}' } }]);
  });

  it("an HTTP error is a short typed error; the provider's text is kept for logs only", async () => {
    fake = await FakeChatCompletions.start([{ status: 401, body: '{"error":{"message":"Incorrect API key provided: sk-SECRET"}}' }]);
    const error = await failure(chatCompletions({ baseUrl: fake.url, model: "m", timeoutMs: 5_000 }).complete(messages, tools, never));
    expect(error).toMatchObject({ problem: "http_status", status: 401, message: "model request failed: HTTP 401" });
    expect(error.message).not.toContain("sk-SECRET");
    expect(error.detail).toContain("Incorrect API key");
  });

  it("an unreachable endpoint is a network error", async () => {
    fake = await FakeChatCompletions.start();
    const url = fake.url;
    await fake.close();
    fake = undefined;
    const error = await failure(chatCompletions({ baseUrl: url, model: "m", timeoutMs: 5_000 }).complete(messages, tools, never));
    expect(error.problem).toBe("network");
  });

  it("a slow endpoint times out", async () => {
    fake = await FakeChatCompletions.start([() => new Promise((resolve) => setTimeout(() => resolve(says("late")), 2_000))]);
    const error = await failure(chatCompletions({ baseUrl: fake.url, model: "m", timeoutMs: 200 }).complete(messages, tools, never));
    expect(error).toMatchObject({ problem: "timeout", message: "model request timed out after 0.2s" });
  });

  it("an abort rejects with the abort reason, not a ModelRequestError", async () => {
    fake = await FakeChatCompletions.start([() => new Promise((resolve) => setTimeout(() => resolve(says("late")), 2_000))]);
    const turn = new AbortController();
    const pending = chatCompletions({ baseUrl: fake.url, model: "m", timeoutMs: 5_000 }).complete(messages, tools, turn.signal);
    setTimeout(() => turn.abort(new Error("cancelled by test")), 100);
    await expect(pending).rejects.toThrow("cancelled by test");
  });
});

describe("assistantMessageFrom", () => {
  it("fills in missing call ids and stringifies object arguments", () => {
    const body = JSON.stringify({ choices: [{ message: { content: null, tool_calls: [{ function: { name: "reply", arguments: { messages: ["a"] } } }] } }] });
    expect(assistantMessageFrom(body).tool_calls).toStrictEqual([{ id: "call_1", type: "function", function: { name: "reply", arguments: '{"messages":["a"]}' } }]);
  });

  it("reads a message without content or tool calls as empty text", () => {
    expect(assistantMessageFrom(JSON.stringify({ choices: [{ message: {} }] }))).toStrictEqual({ role: "assistant", content: null });
    expect(assistantMessageFrom(JSON.stringify({ choices: [{ message: { content: "x", tool_calls: null } }] }))).toStrictEqual({ role: "assistant", content: "x" });
  });

  it("rejects a body that is not JSON or has no choices", () => {
    for (const body of ["<html>", "{}", JSON.stringify({ choices: [] })]) {
      expect(() => assistantMessageFrom(body)).toThrow(ModelRequestError);
    }
  });
});
