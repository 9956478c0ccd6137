import { PassThrough } from "node:stream";
import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { JsonRpcConnection, type Notification, type RequestHandler } from "../../src/acp/connection.js";
import { AcpRequestError, AcpTimeoutError, AgentExitedError } from "../../src/acp/errors.js";
import { RpcError } from "../../src/acp/jsonRpc.js";
import { captureLogs } from "../helpers/logCapture.js";

const levels = { debug: 20, warn: 40, error: 50 } as const;

/**
 * A connection whose agent is the test: `send` writes to the connection's input (the agent's
 * stdout), `frames()` reads what the connection wrote to its output (the agent's stdin).
 */
function wire(options: { onRequest?: RequestHandler; maxLineBytes?: number } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on("data", (chunk: Buffer) => chunks.push(chunk));
  const writes = vi.spyOn(output, "write");
  const { logger, records } = captureLogs("debug");
  const onRequest =
    options.onRequest ??
    (() => {
      throw new RpcError(-32601, "Method not found");
    });
  const connection = new JsonRpcConnection({
    input,
    output,
    logger,
    onRequest,
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
  });
  const notifications: Notification[] = [];
  let completed = false;
  connection.notifications.subscribe({ next: (n) => notifications.push(n), complete: () => (completed = true) });
  const text = () => Buffer.concat(chunks).toString("utf8");
  return {
    input,
    output,
    connection,
    records,
    notifications,
    writes,
    isCompleted: () => completed,
    send: (value: unknown) => input.write(`${JSON.stringify(value)}\n`),
    sendRaw: (raw: string | Buffer) => input.write(raw),
    /** Bytes the connection wrote to the agent's stdin. */
    writtenBytes: () => Buffer.concat(chunks).length,
    /** Each line the connection wrote, parsed. */
    frames: () =>
      text()
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    dropped: () => records.filter((r) => r.msg === "agent stdout line dropped"),
  };
}

const notification = (seq: number) => ({
  jsonrpc: "2.0",
  method: "session/update",
  params: { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `chunk ${seq}` } } },
});

/** Lets stream events and microtasks run. */
async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await tick();
}

describe("JsonRpcConnection", () => {
  describe("requests to the agent", () => {
    it("numbers requests with integers from 1, one more for each request", async () => {
      const t = wire();
      void t.connection.request("initialize", { protocolVersion: 1 });
      void t.connection.request("session/new", { cwd: "/tmp", mcpServers: [] });
      void t.connection.request("session/prompt", { sessionId: "s1", prompt: [] });
      await vi.waitFor(() => expect(t.frames()).toHaveLength(3));
      expect(t.frames()).toEqual([
        { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } },
        { jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } },
        { jsonrpc: "2.0", id: 3, method: "session/prompt", params: { sessionId: "s1", prompt: [] } },
      ]);
    });

    it("resolves each request with its own result when answers arrive out of order", async () => {
      const t = wire();
      const first = t.connection.request("a", {});
      const second = t.connection.request("b", {});
      const third = t.connection.request("c", {});
      const order: number[] = [];
      void first.then(() => order.push(1));
      void second.then(() => order.push(2));
      void third.then(() => order.push(3));
      t.send({ jsonrpc: "2.0", id: 3, result: { answer: "three" } });
      t.send({ jsonrpc: "2.0", id: 1, result: { answer: "one" } });
      t.send({ jsonrpc: "2.0", id: 2, result: null });
      await expect(first).resolves.toEqual({ answer: "one" });
      await expect(second).resolves.toBeNull();
      await expect(third).resolves.toEqual({ answer: "three" });
      expect(order).toEqual([3, 1, 2]);
    });

    it("rejects with AcpRequestError carrying code, rpcMessage, data and OpenAB's message format", async () => {
      const t = wire();
      const pending = t.connection.request("session/prompt", {});
      t.send({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "simulated agent failure", data: { message: "upstream 503" } } });
      const error = await pending.catch((err: unknown) => err);
      expect(error).toBeInstanceOf(AcpRequestError);
      const rpc = error as AcpRequestError;
      expect(rpc.name).toBe("AcpRequestError");
      expect(rpc.method).toBe("session/prompt");
      expect(rpc.code).toBe(-32000);
      expect(rpc.rpcMessage).toBe("simulated agent failure");
      expect(rpc.data).toEqual({ message: "upstream 503" });
      expect(rpc.message).toBe("JSON-RPC error -32000: simulated agent failure — upstream 503");
    });

    it("leaves the detail off the message when data has no string message", async () => {
      const t = wire();
      const noData = t.connection.request("session/load", {});
      const otherData = t.connection.request("session/load", {});
      t.send({ jsonrpc: "2.0", id: 1, error: { code: -32002, message: "Resource not found" } });
      t.send({ jsonrpc: "2.0", id: 2, error: { code: -32002, message: "Resource not found", data: { sessionId: "s9", message: 5 } } });
      await expect(noData).rejects.toMatchObject({ message: "JSON-RPC error -32002: Resource not found", data: undefined });
      await expect(otherData).rejects.toMatchObject({
        message: "JSON-RPC error -32002: Resource not found",
        data: { sessionId: "s9", message: 5 },
      });
    });

    it("runs onAnswer synchronously when the answer is read, before a notification in the same read", async () => {
      const t = wire();
      const seen: string[] = [];
      t.connection.notifications.subscribe((n) => seen.push(n.method));
      const answered = t.connection.request("session/prompt", {}, undefined, () => seen.push("answer"));
      t.sendRaw(`${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } })}\n${JSON.stringify(notification(1))}\n`);
      await expect(answered).resolves.toEqual({ stopReason: "end_turn" });
      expect(seen).toEqual(["answer", "session/update"]);
    });

    it("rejects with AcpTimeoutError after the per-request timeout and ignores a late answer for that id", async () => {
      const t = wire();
      const slow = t.connection.request("session/new", {}, 30);
      const error = await slow.catch((err: unknown) => err);
      expect(error).toBeInstanceOf(AcpTimeoutError);
      expect(error).toMatchObject({ name: "AcpTimeoutError", method: "session/new", timeoutMs: 30 });
      expect((error as Error).message).toBe("agent did not answer session/new within 30 ms");

      // The answer arrives after the timeout: logged at debug, and it must not resolve anything.
      t.send({ jsonrpc: "2.0", id: 1, result: { sessionId: "late" } });
      await vi.waitFor(() =>
        expect(t.records).toContainEqual(expect.objectContaining({ level: levels.debug, msg: "agent response ignored", reason: "unknown_id", id: 1 })),
      );

      // The connection still works, with the next id.
      const next = t.connection.request("session/new", {}, 1_000);
      t.send({ jsonrpc: "2.0", id: 2, result: { sessionId: "s2" } });
      await expect(next).resolves.toEqual({ sessionId: "s2" });
    });

    it("clears the timeout of a request that was answered in time", async () => {
      vi.useFakeTimers();
      try {
        const t = wire();
        const quick = t.connection.request("initialize", {}, 40);
        expect(vi.getTimerCount()).toBe(1);
        t.send({ jsonrpc: "2.0", id: 1, result: { protocolVersion: 1 } });
        await expect(quick).resolves.toEqual({ protocolVersion: 1 });
        expect(vi.getTimerCount()).toBe(0);
      } finally {
        vi.useRealTimers();
      }
    });

    it("waits without a timer when no timeout is given", () => {
      vi.useFakeTimers();
      try {
        const t = wire();
        void t.connection.request("session/prompt", {});
        expect(vi.getTimerCount()).toBe(0);
      } finally {
        vi.useRealTimers();
      }
    });

    it("ignores (at debug) answers for ids it never sent and errors with id null", async () => {
      const t = wire();
      t.send({ jsonrpc: "2.0", id: 99, result: {} });
      t.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      await vi.waitFor(() => expect(t.records.filter((r) => r.msg === "agent response ignored")).toHaveLength(2));
      expect(t.records.filter((r) => r.msg === "agent response ignored")).toEqual([
        expect.objectContaining({ level: levels.debug, reason: "unknown_id", id: 99 }),
        expect.objectContaining({ level: levels.debug, reason: "unknown_id", id: null }),
      ]);
      expect(t.writtenBytes()).toBe(0);
    });
  });

  describe("notifications from the agent", () => {
    it("emits a notification synchronously, while the stdout chunk is being handled", () => {
      const t = wire();
      t.input.emit("data", Buffer.from(`${JSON.stringify(notification(0))}\n`));
      expect(t.notifications).toEqual([{ method: "session/update", params: notification(0).params }]);
    });

    it("emits notifications before the response that follows them on the wire resolves its request", async () => {
      const t = wire();
      const seenAtResolve: number[] = [];
      const prompt = t.connection.request("session/prompt", {}).then((result) => {
        seenAtResolve.push(t.notifications.length);
        return result;
      });
      t.sendRaw(
        [notification(0), notification(1), { jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } }]
          .map((m) => `${JSON.stringify(m)}\n`)
          .join(""),
      );
      await expect(prompt).resolves.toEqual({ stopReason: "end_turn" });
      expect(seenAtResolve).toEqual([2]);
    });

    it("keeps wire order across 300 notifications interleaved with out-of-order responses in odd-sized chunks", async () => {
      const t = wire();
      const requests = 100;
      const resolvedAt: { id: number; seen: number }[] = [];
      const promises = Array.from({ length: requests }, (_, i) =>
        t.connection.request("x", { i }).then((result) => {
          resolvedAt.push({ id: i + 1, seen: t.notifications.length });
          return result;
        }),
      );

      // Deterministic shuffle of response ids (LCG), so the order differs from request order.
      let seed = 12345;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const ids = Array.from({ length: requests }, (_, i) => i + 1);
      for (let i = ids.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [ids[i], ids[j]] = [ids[j]!, ids[i]!];
      }

      const wireLines: string[] = [];
      const notificationsBefore = new Map<number, number>();
      for (let seq = 0; seq < 300; seq++) {
        wireLines.push(JSON.stringify(notification(seq)));
        if (seq % 3 === 2) {
          const id = ids[(seq - 2) / 3]!;
          notificationsBefore.set(id, seq + 1);
          wireLines.push(JSON.stringify({ jsonrpc: "2.0", id, result: { id } }));
        }
      }
      const bytes = Buffer.from(`${wireLines.join("\n")}\n`);
      for (let offset = 0; offset < bytes.length; ) {
        const size = 1 + Math.floor(random() * 300);
        t.sendRaw(bytes.subarray(offset, offset + size));
        offset += size;
      }

      const results = await Promise.all(promises);
      expect(results).toEqual(Array.from({ length: requests }, (_, i) => ({ id: i + 1 })));

      // Notifications: all 300, exactly in wire order.
      expect(t.notifications.map((n) => (n.params as { update: { content: { text: string } } }).update.content.text)).toEqual(
        Array.from({ length: 300 }, (_, seq) => `chunk ${seq}`),
      );
      // Responses: resolved in wire order, each after every notification that preceded it on the wire.
      expect(resolvedAt.map((r) => r.id)).toEqual(ids);
      const inversions = resolvedAt.filter((r) => r.seen < notificationsBefore.get(r.id)!);
      expect(inversions).toEqual([]);
      expect(t.dropped()).toEqual([]);
    });
  });

  describe("lines that are not JSON-RPC", () => {
    it("drops them with a stable warn and reason, keeps working, and writes nothing back to the agent", async () => {
      const t = wire();
      t.sendRaw("Starting MCP server on port 3000...\n");
      t.sendRaw('[{"jsonrpc":"2.0","id":1,"method":"x"}]\n');
      t.sendRaw('{"jsonrpc":"1.0","id":1,"method":"x"}\n');
      t.sendRaw('{"id":2,"result":{}}\n');
      t.send(notification(7));
      await vi.waitFor(() => expect(t.notifications).toHaveLength(1));
      await settle();

      expect(t.dropped()).toEqual([
        expect.objectContaining({ level: levels.warn, reason: "not_json", sample: "Starting MCP server on port 3000..." }),
        expect.objectContaining({ level: levels.warn, reason: "not_jsonrpc", sample: '[{"jsonrpc":"2.0","id":1,"method":"x"}]' }),
        expect.objectContaining({ level: levels.warn, reason: "not_jsonrpc", sample: '{"jsonrpc":"1.0","id":1,"method":"x"}' }),
        expect.objectContaining({ level: levels.warn, reason: "not_jsonrpc", sample: '{"id":2,"result":{}}' }),
      ]);
      // Unlike SDK 2.4.0, no -32700 / -32600 answer is written into the agent's stdin.
      expect(t.writes).not.toHaveBeenCalled();
      expect(t.writtenBytes()).toBe(0);
      expect(t.connection.isClosed).toBe(false);

      // Still working afterwards, in both directions.
      const answer = t.connection.request("session/new", {});
      t.send({ jsonrpc: "2.0", id: 1, result: { sessionId: "s1" } });
      await expect(answer).resolves.toEqual({ sessionId: "s1" });
    });

    it("logs a sample of at most 200 characters of a dropped line, saying how much was cut", async () => {
      const t = wire();
      const long = `noise ${"x".repeat(500)}`;
      t.sendRaw(`${long}\n`);
      await vi.waitFor(() => expect(t.dropped()).toHaveLength(1));
      expect(t.dropped()[0]!.sample).toBe(`${long.slice(0, 187)}…(+319 chars)`);
    });

    it("logs the sample without control characters or escape sequences", async () => {
      const t = wire();
      t.sendRaw(`\u001b[31mnoise\u001b[0m\u0000 \u001b]0;title\u0007here\r\n`);
      await vi.waitFor(() => expect(t.dropped()).toHaveLength(1));
      expect(t.dropped()[0]!.sample).toBe("noise here");
    });

    it("skips blank and whitespace-only lines silently", async () => {
      const t = wire();
      t.sendRaw("\n   \r\n\t\n");
      t.send(notification(1));
      await vi.waitFor(() => expect(t.notifications).toHaveLength(1));
      expect(t.records).toEqual([]);
      expect(t.writtenBytes()).toBe(0);
    });

    it("drops an over-long line with reason line_too_long and its size, and reads the next line intact", async () => {
      const t = wire({ maxLineBytes: 256 });
      const huge = JSON.stringify({ ...notification(0), params: { padding: "p".repeat(1_000) } });
      t.sendRaw(huge.slice(0, 400));
      t.sendRaw(`${huge.slice(400)}\n`);
      t.send(notification(1));
      await vi.waitFor(() => expect(t.notifications).toHaveLength(1));
      expect(t.notifications[0]!.params).toEqual(notification(1).params);
      expect(t.dropped()).toEqual([
        expect.objectContaining({ level: levels.warn, reason: "line_too_long", bytes: Buffer.byteLength(huge) }),
      ]);
      expect(t.writtenBytes()).toBe(0);
    });
  });

  describe("requests from the agent", () => {
    it("passes method and params to onRequest and answers with its result, echoing the id", async () => {
      const calls: [string, unknown][] = [];
      const t = wire({
        onRequest: (method, params) => {
          calls.push([method, params]);
          return { outcome: { outcome: "selected", optionId: "allow" } };
        },
      });
      t.send({ jsonrpc: "2.0", id: "perm-1", method: "session/request_permission", params: { sessionId: "s1", options: [] } });
      await vi.waitFor(() => expect(t.frames()).toHaveLength(1));
      expect(calls).toEqual([["session/request_permission", { sessionId: "s1", options: [] }]]);
      expect(t.frames()).toEqual([{ jsonrpc: "2.0", id: "perm-1", result: { outcome: { outcome: "selected", optionId: "allow" } } }]);
    });

    it("answers `result: null` when the handler returns undefined", async () => {
      const t = wire({ onRequest: () => undefined });
      t.send({ jsonrpc: "2.0", id: 4, method: "_vendor/ping", params: {} });
      await vi.waitFor(() => expect(t.writtenBytes()).toBeGreaterThan(0));
      expect(Buffer.concat(t.writes.mock.calls.map((c) => Buffer.from(String(c[0])))).toString()).toBe('{"jsonrpc":"2.0","id":4,"result":null}\n');
    });

    it("awaits an async handler", async () => {
      const t = wire({
        onRequest: async (method) => {
          await new Promise((resolve) => setTimeout(resolve, 10));
          return { handled: method };
        },
      });
      t.send({ jsonrpc: "2.0", id: 1, method: "fs/read_text_file", params: {} });
      await vi.waitFor(() => expect(t.frames()).toEqual([{ jsonrpc: "2.0", id: 1, result: { handled: "fs/read_text_file" } }]));
    });

    it("answers a thrown RpcError with its code, message and data", async () => {
      const t = wire({
        onRequest: (method) => {
          throw new RpcError(-32601, "Method not found", { method });
        },
      });
      t.send({ jsonrpc: "2.0", id: 8, method: "terminal/create", params: {} });
      await vi.waitFor(() => expect(t.frames()).toHaveLength(1));
      expect(t.frames()).toEqual([
        { jsonrpc: "2.0", id: 8, error: { code: -32601, message: "Method not found", data: { method: "terminal/create" } } },
      ]);
      expect(t.records.filter((r) => r.level >= levels.warn)).toEqual([]);
    });

    it("answers an RpcError without data with no data field, also when an async handler rejects with it", async () => {
      const t = wire({
        onRequest: async () => {
          throw new RpcError(-32602, "Invalid params");
        },
      });
      t.send({ jsonrpc: "2.0", id: 1, method: "fs/write_text_file", params: {} });
      await vi.waitFor(() => expect(t.frames()).toHaveLength(1));
      expect(t.frames()[0]).toStrictEqual({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid params" } });
    });

    it.each([
      ["a synchronous throw", () => {
        throw new TypeError("secret internal detail");
      }],
      ["an async rejection", async () => {
        throw new TypeError("secret internal detail");
      }],
    ] as const)("answers any other error (%s) with -32603 Internal error and logs it", async (_name, handler) => {
      const t = wire({ onRequest: handler });
      t.send({ jsonrpc: "2.0", id: 3, method: "session/request_permission", params: {} });
      await vi.waitFor(() => expect(t.frames()).toHaveLength(1));
      expect(t.frames()).toStrictEqual([{ jsonrpc: "2.0", id: 3, error: { code: -32603, message: "Internal error" } }]);
      expect(JSON.stringify(t.frames())).not.toContain("secret");
      expect(t.records).toContainEqual(
        expect.objectContaining({ level: levels.error, msg: "agent request handler failed", method: "session/request_permission" }),
      );
    });

    it("does not route agent requests to notifications or responses to onRequest", async () => {
      const onRequest = vi.fn(() => ({}));
      const t = wire({ onRequest });
      const pending = t.connection.request("initialize", {});
      t.send({ jsonrpc: "2.0", id: 1, result: { ok: true } });
      t.send({ jsonrpc: "2.0", id: 1, method: "fs/read_text_file", params: {} });
      await expect(pending).resolves.toEqual({ ok: true });
      await vi.waitFor(() => expect(onRequest).toHaveBeenCalledTimes(1));
      expect(t.notifications).toEqual([]);
    });
  });

  describe("when the agent's stdout ends", () => {
    it("rejects every pending request with AgentExitedError, completes notifications and resolves closed", async () => {
      const t = wire();
      const a = t.connection.request("session/prompt", {});
      const b = t.connection.request("session/new", {}, 60_000);
      t.input.end();
      await expect(a).rejects.toBeInstanceOf(AgentExitedError);
      await expect(b).rejects.toBeInstanceOf(AgentExitedError);
      await expect(t.connection.closed).resolves.toBeUndefined();
      expect(t.isCompleted()).toBe(true);
      expect(t.connection.isClosed).toBe(true);
    });

    it("clears the timeouts of the requests it rejects", async () => {
      vi.useFakeTimers();
      try {
        const t = wire();
        const pending = t.connection.request("session/new", {}, 60_000);
        expect(vi.getTimerCount()).toBe(1);
        t.input.end();
        await expect(pending).rejects.toBeInstanceOf(AgentExitedError);
        expect(vi.getTimerCount()).toBe(0);
      } finally {
        vi.useRealTimers();
      }
    });

    it("rejects a later request immediately without writing it, and ignores later notify", async () => {
      const t = wire();
      t.input.end();
      await t.connection.closed;
      const writesBefore = t.writes.mock.calls.length;
      await expect(t.connection.request("session/new", {})).rejects.toBeInstanceOf(AgentExitedError);
      t.connection.notify("session/cancel", { sessionId: "s1" });
      expect(t.writes.mock.calls.length).toBe(writesBefore);
    });

    it("handles an unterminated last line before closing", async () => {
      const t = wire();
      const pending = t.connection.request("session/prompt", {});
      t.sendRaw(`${JSON.stringify(notification(0))}\n${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } })}`);
      t.input.end();
      await expect(pending).resolves.toEqual({ stopReason: "end_turn" });
      await t.connection.closed;
      expect(t.notifications).toHaveLength(1);
      expect(t.isCompleted()).toBe(true);
    });

    it("also closes when stdout is destroyed without an end", async () => {
      const t = wire();
      const pending = t.connection.request("session/prompt", {});
      t.input.destroy();
      await expect(pending).rejects.toBeInstanceOf(AgentExitedError);
      await expect(t.connection.closed).resolves.toBeUndefined();
      expect(t.isCompleted()).toBe(true);
    });

    it("close(reason) rejects pending requests with that reason", async () => {
      const t = wire();
      const pending = t.connection.request("session/prompt", {});
      const reason = new Error("pool shutting down");
      t.connection.close(reason);
      await expect(pending).rejects.toBe(reason);
      await expect(t.connection.request("x", {})).rejects.toBe(reason);
      expect(t.isCompleted()).toBe(true);
    });
  });

  describe("writing to the agent", () => {
    it("does not throw when the output stream is destroyed; requests then wait for their timeout", async () => {
      const t = wire();
      t.output.destroy();
      expect(() => t.connection.notify("session/cancel", { sessionId: "s1" })).not.toThrow();
      await expect(t.connection.request("session/new", {}, 20)).rejects.toBeInstanceOf(AcpTimeoutError);
    });

    it("does not throw when the output stream has ended, nor when answering an agent request then", async () => {
      const t = wire({ onRequest: () => ({}) });
      t.output.end();
      expect(() => t.connection.notify("session/cancel", { sessionId: "s1" })).not.toThrow();
      t.send({ jsonrpc: "2.0", id: 1, method: "session/request_permission", params: {} });
      await expect(t.connection.request("session/new", {}, 20)).rejects.toBeInstanceOf(AcpTimeoutError);
      expect(t.writes).not.toHaveBeenCalled();
    });

    it("logs (debug) an error on the output stream instead of crashing", async () => {
      const t = wire();
      t.output.destroy(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      await vi.waitFor(() =>
        expect(t.records).toContainEqual(expect.objectContaining({ level: levels.debug, msg: "agent stdin write failed" })),
      );
    });

    it("writes every frame as exactly one line of compact JSON ending in a newline, with jsonrpc 2.0", async () => {
      const t = wire({ onRequest: () => ({ text: "line one\nline two" }) });
      void t.connection.request("session/prompt", {
        sessionId: "s1",
        prompt: [{ type: "text", text: "multi\nline\r\ntext with \u2028 and 好 and 🎉" }],
      });
      t.connection.notify("session/cancel", { sessionId: "s1" });
      t.send({ jsonrpc: "2.0", id: 9, method: "fs/read_text_file", params: {} });
      await vi.waitFor(() => expect(t.writes).toHaveBeenCalledTimes(3));

      for (const [chunk] of t.writes.mock.calls) {
        const line = String(chunk);
        expect(line.endsWith("\n")).toBe(true);
        expect(line.indexOf("\n")).toBe(line.length - 1);
        const body = line.slice(0, -1);
        const parsed = JSON.parse(body) as { jsonrpc?: unknown };
        expect(parsed.jsonrpc).toBe("2.0");
        expect(body).toBe(JSON.stringify(parsed));
      }
      expect(t.frames().map((f) => f.method ?? f.id)).toEqual(["session/prompt", "session/cancel", 9]);
      expect(t.frames()[1]).toStrictEqual({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "s1" } });
    });
  });
});

describe("JsonRpcConnection with values JSON cannot carry", () => {
  it("answers -32603 when a handler's result cannot be serialized, instead of an unhandled rejection", async () => {
    const w = wire({ onRequest: () => ({ big: 1n }) });
    w.send({ jsonrpc: "2.0", id: 7, method: "session/request_permission", params: {} });
    await settle();
    expect(w.frames()).toEqual([{ jsonrpc: "2.0", id: 7, error: { code: -32603, message: "Internal error" } }]);
    expect(w.records.find((r) => r.msg === "agent request handler failed")).toMatchObject({ method: "session/request_permission" });
  });

  it("rejects a request whose params cannot be serialized and keeps nothing pending", async () => {
    const w = wire();
    await expect(w.connection.request("session/prompt", { big: 1n }, 50)).rejects.toThrow(TypeError);
    // Had it stayed pending, its timeout would now reject a second time or an answer would resolve it.
    w.send({ jsonrpc: "2.0", id: 1, result: {} });
    await settle();
    expect(w.records.find((r) => r.msg === "agent response ignored")).toMatchObject({ reason: "unknown_id", id: 1 });
    expect(w.writtenBytes()).toBe(0);
  });
});
