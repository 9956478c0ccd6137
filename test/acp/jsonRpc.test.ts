import { describe, expect, it } from "vitest";
import { AcpRequestError } from "../../src/acp/errors.js";
import { parseFrame, RpcError, rpcErrorCodes } from "../../src/acp/jsonRpc.js";
import { chatRedaction } from "../../src/log/secretScrubber.js";
import { shownFragments } from "../helpers/secretFragments.js";

const frame = (value: unknown) => parseFrame(JSON.stringify(value));

describe("parseFrame", () => {
  describe("requests (method and id)", () => {
    it("classifies a request with an integer id", () => {
      expect(frame({ jsonrpc: "2.0", id: 7, method: "session/request_permission", params: { sessionId: "s" } })).toEqual({
        kind: "request",
        id: 7,
        method: "session/request_permission",
        params: { sessionId: "s" },
      });
    });

    it("keeps a string id as a string and an id of 0 as a request", () => {
      expect(frame({ jsonrpc: "2.0", id: "req-1", method: "fs/read_text_file", params: {} })).toMatchObject({ kind: "request", id: "req-1" });
      expect(frame({ jsonrpc: "2.0", id: 0, method: "m" })).toMatchObject({ kind: "request", id: 0 });
    });

    it("gives params undefined when the request has none", () => {
      expect(frame({ jsonrpc: "2.0", id: 1, method: "m" })).toEqual({ kind: "request", id: 1, method: "m", params: undefined });
    });
  });

  describe("notifications (method, no id)", () => {
    it("classifies a frame without id as a notification", () => {
      const update = { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } } };
      expect(frame({ jsonrpc: "2.0", method: "session/update", params: update })).toEqual({
        kind: "notification",
        method: "session/update",
        params: update,
      });
    });

    it("classifies a frame with id null and a method as a notification (never answered)", () => {
      expect(frame({ jsonrpc: "2.0", id: null, method: "session/update", params: { x: 1 } })).toEqual({
        kind: "notification",
        method: "session/update",
        params: { x: 1 },
      });
    });
  });

  describe("responses", () => {
    it("classifies a result", () => {
      expect(frame({ jsonrpc: "2.0", id: 3, result: { stopReason: "end_turn" } })).toEqual({
        kind: "result",
        id: 3,
        result: { stopReason: "end_turn" },
      });
    });

    it("classifies `result: null` as a result (not as a malformed frame)", () => {
      expect(parseFrame('{"jsonrpc":"2.0","id":4,"result":null}')).toEqual({ kind: "result", id: 4, result: null });
    });

    it("classifies falsy results (0, false, empty string) as results", () => {
      expect(frame({ jsonrpc: "2.0", id: 1, result: 0 })).toEqual({ kind: "result", id: 1, result: 0 });
      expect(frame({ jsonrpc: "2.0", id: 1, result: false })).toEqual({ kind: "result", id: 1, result: false });
      expect(frame({ jsonrpc: "2.0", id: 1, result: "" })).toEqual({ kind: "result", id: 1, result: "" });
    });

    it("classifies an error with its id, code, message and data", () => {
      const error = { code: -32000, message: "simulated agent failure", data: { message: "upstream 503" } };
      expect(frame({ jsonrpc: "2.0", id: 5, error })).toEqual({ kind: "error", id: 5, error });
    });

    it("classifies an error with `id: null` (as the ACP SDK writes for a parse error)", () => {
      expect(parseFrame('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}')).toEqual({
        kind: "error",
        id: null,
        error: { code: -32700, message: "Parse error" },
      });
    });

    it("classifies an error without any id as an error with id null", () => {
      expect(frame({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid request" } })).toEqual({
        kind: "error",
        id: null,
        error: { code: -32600, message: "Invalid request" },
      });
    });

    it("bounds and cleans the agent's error: message to 500 chars with its line breaks, data to a small copy", () => {
      const hostile = "\u001b[31mboom\u001b[0m\u0000\r\n\u202eevil ".repeat(50_000);
      const parsed = frame({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: hostile, data: { message: hostile, trace: [hostile, hostile] } } });
      if (typeof parsed === "string" || parsed.kind !== "error") throw new Error("not an error frame");
      expect(parsed.error.message.length).toBeLessThanOrEqual(500);
      expect(parsed.error.message.startsWith("boom\nevil boom\nevil ")).toBe(true);
      expect(parsed.error.message).toMatch(/…\(\+[\d,]+ chars\)$/);
      const data = parsed.error.data as { message: string; trace: string[] };
      expect(data.message.length).toBeLessThanOrEqual(500);
      expect(JSON.stringify(data).length).toBeLessThan(1_200);
      // eslint-disable-next-line no-control-regex
      expect(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/.test(JSON.stringify(parsed.error).replace(/\\n/g, ""))).toBe(false);
    });

    it("keeps unknown fields of the error object", () => {
      const parsed = frame({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "m", extra: true } });
      expect(parsed).toEqual({ kind: "error", id: 1, error: { code: 1, message: "m", extra: true } });
    });
  });

  describe("lines that are not JSON", () => {
    it.each([
      ["a log line", "Starting server on port 3000..."],
      ["an empty line", ""],
      ["truncated JSON", '{"jsonrpc":"2.0","id":1,"res'],
      ["an ANSI-coloured banner", "\u001b[32mready\u001b[0m"],
    ])("returns not_json for %s", (_name, line) => {
      expect(parseFrame(line)).toBe("not_json");
    });
  });

  describe("JSON that is not JSON-RPC 2.0", () => {
    it.each([
      ["an array (a batch)", [{ jsonrpc: "2.0", id: 1, method: "m" }]],
      ["an empty array", []],
      ["a number", 42],
      ["a string", "hello"],
      ["null", null],
      ["an object without jsonrpc", { id: 1, method: "m" }],
      ['jsonrpc "1.0"', { jsonrpc: "1.0", id: 1, method: "m" }],
      ["jsonrpc as the number 2", { jsonrpc: 2, id: 1, method: "m" }],
      ["neither method nor result nor error", { jsonrpc: "2.0", id: 1 }],
      ["only jsonrpc", { jsonrpc: "2.0" }],
      ["a result with id null", { jsonrpc: "2.0", id: null, result: {} }],
      ["a result without id", { jsonrpc: "2.0", result: {} }],
      ["a non-string method", { jsonrpc: "2.0", id: 1, method: 5 }],
      ["an object id", { jsonrpc: "2.0", id: { n: 1 }, result: {} }],
      ["an error without a code", { jsonrpc: "2.0", id: 1, error: { message: "x" } }],
      ["an error with a string code", { jsonrpc: "2.0", id: 1, error: { code: "E1", message: "x" } }],
      ["an error that is a string", { jsonrpc: "2.0", id: 1, error: "boom" }],
    ])("returns not_jsonrpc for %s", (_name, value) => {
      expect(frame(value)).toBe("not_jsonrpc");
    });

    it("returns not_jsonrpc for an id or an error code that JSON.parse makes Infinity (1e999)", () => {
      expect(parseFrame('{"jsonrpc":"2.0","id":1e999,"result":{}}')).toBe("not_jsonrpc");
      expect(parseFrame('{"jsonrpc":"2.0","id":1,"error":{"code":1e999,"message":"x"}}')).toBe("not_jsonrpc");
    });
  });
});

describe("RpcError", () => {
  it("carries code, message and data and is an Error named RpcError", () => {
    const error = new RpcError(rpcErrorCodes.methodNotFound, "Method not found", { method: "terminal/create" });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("RpcError");
    expect(error.code).toBe(-32601);
    expect(error.message).toBe("Method not found");
    expect(error.data).toEqual({ method: "terminal/create" });
  });
});

describe("rpcErrorCodes", () => {
  it("uses the JSON-RPC and ACP codes of acp.md §11", () => {
    expect(rpcErrorCodes).toEqual({
      parseError: -32700,
      invalidRequest: -32600,
      methodNotFound: -32601,
      invalidParams: -32602,
      internalError: -32603,
      authRequired: -32000,
      resourceNotFound: -32002,
    });
  });
});

// Issue 36 (b): an agent's error is shown in chat as `⚠️ <message>`; it gets the log's masking.
describe("an agent error's secrets", () => {
  const agentEnvValue = "Zq7XenvK-0c3d55-Wq";
  const redact = chatRedaction([agentEnvValue]);
  const errorFrame = (error: Record<string, unknown>) => {
    const parsed = parseFrame(JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32000, ...error } }), redact);
    if (typeof parsed === "string" || parsed.kind !== "error") throw new Error("not an error frame");
    return parsed.error;
  };

  it("masks [agent.env] values, URL credentials and token shapes in the message and in data.message, which users see", () => {
    const message = `upstream refused key ${agentEnvValue} at https://bob:UrlPassw0rd@api.example.com/v1?api_key=QueryK3y99 (ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123)`;
    const error = errorFrame({ message, data: { message: `retry with ${agentEnvValue}`, other: 1 } });
    const shown = new AcpRequestError("session/prompt", error.code, error.message, error.data).message;
    expect(shown).toBe("JSON-RPC error -32000: upstream refused key *** at https://api.example.com/v1?api_key=[redacted] ([redacted]) — retry with ***");
    for (const secret of [agentEnvValue, "UrlPassw0rd", "QueryK3y99", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123"]) expect(shownFragments(shown, secret)).toEqual([]);
  });

  it("masks the whole message before it is cut to 500 chars: a secret across the cut leaves nothing", () => {
    const error = errorFrame({ message: `${"failed ".repeat(69)}${agentEnvValue} and then some more words after the secret` });
    expect(error.message.length).toBeLessThanOrEqual(500);
    expect(shownFragments(error.message, agentEnvValue)).toEqual([]);
  });

  it("masks the token shapes by default, without the broker's secrets", () => {
    const parsed = frame({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "bad token AKIAIOSFODNN7EXAMPLE" } });
    expect(parsed).toMatchObject({ kind: "error", error: { message: "bad token [redacted]" } });
  });
});
