import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { RpcError } from "../../src/acp/jsonRpc.js";
import { AgentConnection } from "../../src/agent/agentConnection.js";
import { AgentConnectionClosedError } from "../../src/agent/errors.js";
import { captureLogs } from "../helpers/logCapture.js";

function wired() {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let partial = "";
  output.on("data", (chunk: Buffer) => {
    const parts = (partial + chunk.toString("utf8")).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  const { logger, records } = captureLogs();
  const connection = new AgentConnection({ input, output, logger });
  const send = (frame: object) => input.write(`${JSON.stringify({ jsonrpc: "2.0", ...frame })}\n`);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  return { input, output, lines, records, connection, send, settle };
}

describe("AgentConnection", () => {
  it("answers requests with their handler's result, and null for undefined", async () => {
    const { connection, send, lines, settle } = wired();
    connection.onRequest("echo", (params) => params).onRequest("nothing", () => undefined);
    send({ id: 1, method: "echo", params: { a: 1 } });
    send({ id: "two", method: "nothing" });
    await settle();
    expect(lines).toEqual([
      { jsonrpc: "2.0", id: 1, result: { a: 1 } },
      { jsonrpc: "2.0", id: "two", result: null },
    ]);
  });

  it("a slow request does not hold up the next message", async () => {
    const { connection, send, lines, settle } = wired();
    const seen: string[] = [];
    connection.onRequest("slow", () => new Promise((resolve) => setTimeout(() => resolve("slow done"), 50)));
    connection.onNotification("ping", () => void seen.push("ping"));
    send({ id: 1, method: "slow" });
    send({ method: "ping" });
    await settle();
    expect(seen).toEqual(["ping"]);
    expect(lines).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(lines).toEqual([{ jsonrpc: "2.0", id: 1, result: "slow done" }]);
  });

  it("turns RpcError into its JSON-RPC error, anything else into -32603 with a log line", async () => {
    const { connection, send, lines, records, settle } = wired();
    connection.onRequest("bad", () => {
      throw new RpcError(-32602, "Invalid params", { field: "x" });
    });
    connection.onRequest("bug", () => {
      throw new TypeError("oops");
    });
    send({ id: 1, method: "bad" });
    send({ id: 2, method: "bug" });
    send({ id: 3, method: "unknown/method" });
    await settle();
    expect(lines).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid params", data: { field: "x" } } },
      { jsonrpc: "2.0", id: 2, error: { code: -32603, message: "Internal error" } },
      { jsonrpc: "2.0", id: 3, error: { code: -32601, message: "Method not found", data: { method: "unknown/method" } } },
    ]);
    expect(records.find((record) => record.msg === "acp request handler failed")).toMatchObject({ method: "bug" });
  });

  it("ignores responses (it sends no requests) and oversized lines", async () => {
    const { logger, records } = captureLogs();
    const input = new PassThrough();
    const output = new PassThrough();
    new AgentConnection({ input, output, logger, maxLineBytes: 64 });
    input.write(`${JSON.stringify({ jsonrpc: "2.0", id: 9, result: {} })}\n`);
    input.write(`${"x".repeat(100)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(output.read()).toBeNull();
    expect(records.map((record) => record.msg)).toEqual(["acp response ignored", "acp line dropped"]);
    expect(records[1]).toMatchObject({ reason: "line_too_long" });
  });

  it("notify resolves once written, as one compact line", async () => {
    const { connection, lines } = wired();
    await connection.notify("session/update", { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "a\nb" } } });
    expect(lines).toEqual([{ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "a\nb" } } } }]);
  });

  it("notify rejects with AgentConnectionClosedError once the output fails, and keeps rejecting", async () => {
    const output = new Writable({ write: (_chunk, _encoding, done) => done(new Error("EPIPE")) });
    const connection = new AgentConnection({ input: new PassThrough(), output, logger: captureLogs().logger });
    await expect(connection.notify("session/update", {})).rejects.toBeInstanceOf(AgentConnectionClosedError);
    await expect(connection.notify("session/update", {})).rejects.toBeInstanceOf(AgentConnectionClosedError);
  });

  it("closed resolves when the input ends; answers to earlier requests still go out", async () => {
    const { connection, input, send, lines } = wired();
    connection.onRequest("late", () => new Promise((resolve) => setTimeout(() => resolve("ok"), 20)));
    send({ id: 1, method: "late" });
    input.end();
    await connection.closed;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(lines).toEqual([{ jsonrpc: "2.0", id: 1, result: "ok" }]);
  });
});
