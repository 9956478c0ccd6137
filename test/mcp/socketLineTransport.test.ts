import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { MessageTooLargeError } from "../../src/mcp/errors.js";
import { SocketLineTransport } from "../../src/mcp/socketLineTransport.js";
import { until } from "../helpers/stack.js";

// The socket endpoint's framing, on a real unix socket pair: the broker's end wrapped in the
// transport, the other end written and read by the test.

let server: Server | undefined;
const sockets: Socket[] = [];
const dir = mkdtempSync(join(tmpdir(), "ts-line-"));
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let pairs = 0;

/** A connected pair: `broker` (paused, as the endpoint hands it over) and `client`. */
async function pair(): Promise<{ broker: Socket; client: Socket; received: () => string }> {
  const accepted = new Promise<Socket>((resolve) => {
    server = createServer({ pauseOnConnect: true }, resolve);
  });
  const path = join(dir, `${++pairs}.sock`);
  await new Promise<void>((resolve) => server?.listen(path, resolve));
  const client = connect(path);
  const broker = await accepted;
  sockets.push(client, broker);
  let text = "";
  client.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  client.on("error", () => undefined);
  broker.on("error", () => undefined);
  return { broker, client, received: () => text };
}

function start(broker: Socket, options: { maxMessageBytes?: number; head?: Buffer } = {}) {
  const messages: JSONRPCMessage[] = [];
  const errors: Error[] = [];
  const tooLarge: MessageTooLargeError[] = [];
  let closed = 0;
  const transport = new SocketLineTransport(broker, { maxMessageBytes: options.maxMessageBytes ?? 1024, ...(options.head === undefined ? {} : { head: options.head }), onTooLarge: (err) => tooLarge.push(err) });
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (err) => errors.push(err);
  transport.onclose = () => closed++;
  void transport.start();
  return { transport, messages, errors, tooLarge, closed: () => closed };
}

const line = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`;

describe("SocketLineTransport", () => {
  it("reads messages split across writes, several in one, after the head, CRLF too; skips blank lines; a bad line is an error and the rest goes on", async () => {
    const { broker, client } = await pair();
    const t = start(broker, { head: Buffer.from(`${line(1)}${line(2).slice(0, 10)}`) });
    client.write(`${line(2).slice(10)}\r\n`);
    client.write(`\n${line(3).replace("\n", "\r\n")}not json\n{"jsonrpc":"2.0"}\n${line(4).slice(0, 5)}`);
    client.write(line(4).slice(5));
    expect(await until(() => t.messages.length === 4, 5_000)).toBe(true);
    expect(t.messages.map((m) => ("id" in m ? m.id : undefined))).toEqual([1, 2, 3, 4]);
    expect(t.errors).toHaveLength(2);
  });

  it("answers a message over the bound with a JSON-RPC error line, without an id, and ends the connection", async () => {
    const { broker, client, received } = await pair();
    const t = start(broker, { maxMessageBytes: 1024 });
    const clientClosed = new Promise<void>((resolve) => client.once("close", () => resolve()));
    client.write(line(1));
    // Over the bound before its newline ever comes.
    client.write("x".repeat(700));
    client.write("x".repeat(700));
    await clientClosed;
    expect(t.messages).toHaveLength(1);
    expect(t.tooLarge.map((err) => err.limit)).toEqual([1024]);
    expect(JSON.parse(received().trim())).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: "Message too large: over 1024 bytes; the connection is closed" } });
    expect(await until(() => t.closed() === 1, 5_000)).toBe(true);
  });

  it("stops reading while more than 1 MB of answers wait unread, and reads again once they are taken", async () => {
    const { broker, client, received } = await pair();
    const t = start(broker);
    client.pause();
    const answer = { jsonrpc: "2.0", id: 1, result: { pad: "a".repeat(64 * 1024) } } as JSONRPCMessage;
    for (let i = 0; i < 40; i++) void t.transport.send(answer);
    expect(broker.isPaused()).toBe(true);
    client.write(line(9));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Not read while paused.
    expect(t.messages).toHaveLength(0);
    client.resume();
    expect(await until(() => received().split("\n").length > 40 && t.messages.length === 1, 10_000)).toBe(true);
    expect(broker.isPaused()).toBe(false);
  });
});
