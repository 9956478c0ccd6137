import { afterEach, describe, expect, it } from "vitest";
import { AcpRequestError } from "../../src/acp/errors.js";
import { calls, lookupCall, replyCall, says } from "../helpers/fakeChatCompletions.js";
import { acpValidator, agentMessage } from "../helpers/acpSchema.js";
import { startAgent, type AgentHarness } from "./harness.js";

let agent: AgentHarness | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function rpcError(promise: Promise<unknown>): Promise<AcpRequestError> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(AcpRequestError);
  return error as AcpRequestError;
}

const hold = (ms: number) => () => new Promise<never>((resolve) => setTimeout(() => resolve(says("too late") as never), ms));

describe("reference agent: the agent side of ACP v1", () => {
  it("initialize and session/new answer in the ACP v1 shapes", async () => {
    agent = await startAgent([]);
    const init = agent.frames.find((frame) => frame.id === 1)?.result;
    expect(acpValidator("#/$defs/InitializeResponse")(init)).toBeUndefined();
    expect(init).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: false }, agentInfo: { name: "turnstream-agent" } });
    const sessionId = await agent.newSession();
    expect(acpValidator("#/$defs/NewSessionResponse")({ sessionId })).toBeUndefined();
    expect(sessionId).toMatch(/^turnstream-agent-/);
  });

  it("every frame it writes is a valid ACP agent message (openab_message aside, which is OpenAB's extension)", async () => {
    agent = await startAgent([calls(lookupCall("flight")), calls(replyCall(["a", "b"]))]);
    const sessionId = await agent.newSession();
    await agent.prompt(sessionId, "x");
    await rpcError(agent.prompt("nope", "x"));
    await rpcError(agent.client.request("session/load", { sessionId, cwd: "/tmp", mcpServers: [] }, 5_000));
    expect(agent.frames.length).toBeGreaterThan(5);
    for (const frame of agent.frames) expect(agentMessage(frame), JSON.stringify(frame)).toBeUndefined();
    for (const frame of agent.frames.filter((f) => f.method === "session/update")) {
      expect(acpValidator("#/$defs/SessionNotification")(frame.params), JSON.stringify(frame)).toBeUndefined();
    }
    const prompted = agent.frames.find((frame) => typeof frame.result === "object" && frame.result !== null && "stopReason" in frame.result);
    expect(acpValidator("#/$defs/PromptResponse")(prompted?.result)).toBeUndefined();
  });

  it("session/cancel stops the turn: stopReason cancelled, and the session keeps working", async () => {
    agent = await startAgent([hold(3_000), says("after the cancel")]);
    const sessionId = await agent.newSession();
    const turn = agent.prompt(sessionId, "slow");
    await new Promise((resolve) => setTimeout(resolve, 150));
    agent.client.notify("session/cancel", { sessionId });
    const started = performance.now();
    expect(await turn).toEqual({ stopReason: "cancelled" });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await agent.prompt(sessionId, "again")).toEqual({ stopReason: "end_turn" });
    // The cancelled turn's prompt stays in the history.
    expect(agent.fake.requests[1]?.body.messages.map((message) => message.content).slice(1)).toEqual(["slow", "again"]);
  });

  it("a cancel mid-turn in sequential mode keeps the bubbles already sent and answers the open tool calls in history", async () => {
    agent = await startAgent([calls(replyCall(["on it"], {}, "r1"), lookupCall("flight", "l1")), hold(3_000), says("next turn")], { mode: "sequential" });
    const sessionId = await agent.newSession();
    const turn = agent.prompt(sessionId, "slow");
    await new Promise((resolve) => setTimeout(resolve, 300));
    agent.client.notify("session/cancel", { sessionId });
    expect(await turn).toEqual({ stopReason: "cancelled" });
    expect(agent.updates(sessionId).filter((params) => params?.update.sessionUpdate === "openab_message")).toHaveLength(1);
    await agent.prompt(sessionId, "again");
    const roles = agent.fake.requests[2]?.body.messages.map((message) => message.role);
    expect(roles).toEqual(["system", "user", "assistant", "tool", "tool", "user"]);
  });

  it("a model failure answers the prompt with a short JSON-RPC error and logs the provider's detail", async () => {
    agent = await startAgent([{ status: 500, body: '{"error":{"message":"upstream overloaded"}}' }]);
    const sessionId = await agent.newSession();
    const error = await rpcError(agent.prompt(sessionId, "x"));
    expect(error.code).toBe(-32603);
    expect(error.rpcMessage).toBe("model request failed: HTTP 500");
    expect(agent.records.find((record) => record.msg === "model request failed")).toMatchObject({ reason: "http_status", status: 500, detail: expect.stringContaining("overloaded") });
  });

  it("answers -32002 for an unknown session, -32602 for bad params, -32601 for methods it does not offer", async () => {
    agent = await startAgent([]);
    expect((await rpcError(agent.prompt("no-such-session", "x"))).code).toBe(-32002);
    expect((await rpcError(agent.client.request("session/prompt", { sessionId: 7 }, 5_000))).code).toBe(-32602);
    const notFound = await rpcError(agent.client.request("session/load", { sessionId: "x", cwd: "/tmp", mcpServers: [] }, 5_000));
    expect(notFound.code).toBe(-32601);
    expect(agent.records.find((record) => record.msg === "acp request refused")).toMatchObject({ reason: "method_not_found", method: "session/load" });
  });

  it("refuses a second prompt while one runs in the same session", async () => {
    agent = await startAgent([hold(500)]);
    const sessionId = await agent.newSession();
    const first = agent.prompt(sessionId, "one");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await rpcError(agent.prompt(sessionId, "two"))).code).toBe(-32600);
    await first;
  });

  it("ignores unknown notifications and lines that are not JSON-RPC, answering nothing", async () => {
    agent = await startAgent([says("ok")]);
    const before = agent.frames.length;
    agent.client.notify("_vendor/ping", {});
    agent.client.notify("session/cancel", { sessionId: 1 });
    agent.writeRaw("this is not json");
    agent.writeRaw('{"hello":"world"}');
    agent.writeRaw("");
    const sessionId = await agent.newSession();
    expect(await agent.prompt(sessionId, "x")).toEqual({ stopReason: "end_turn" });
    expect(agent.frames.length - before).toBe(3); // new session, the chunk, the prompt answer
    const dropped = agent.records.filter((record) => record.msg === "acp line dropped").map((record) => record.reason);
    expect(dropped).toEqual(["not_json", "not_jsonrpc"]);
    expect(agent.records.find((record) => record.msg === "acp notification ignored")).toMatchObject({ method: "_vendor/ping" });
  });
});
