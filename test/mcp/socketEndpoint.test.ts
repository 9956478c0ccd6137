import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ReplyToolEndpointError } from "../../src/mcp/errors.js";
import { makeSocketDir, MAX_SOCKET_PATH_BYTES } from "../../src/mcp/socketDir.js";
import { MAX_MESSAGE_BYTES } from "../../src/mcp/socketEndpoint.js";
import { spawnTurnstream } from "../helpers/cli.js";
import { callReply, envOf, secretOf, socketPathOf, stdioEntry, useReplyToolHost } from "../helpers/replyToolHost.js";
import { until } from "../helpers/stack.js";

// The reply tool's unix socket against clients that misbehave, over real sockets and the real
// `turnstream mcp` relay, to an in-process host.

const KEY = "discord:9";
const fixture = useReplyToolHost();
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

interface Connection {
  readonly socket: Socket;
  /** Everything the endpoint sent. */
  received(): string;
  readonly closed: Promise<void>;
}

function open(path: string): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let text = "";
    let closedResolve: () => void = () => undefined;
    const closed = new Promise<void>((done) => (closedResolve = done));
    socket.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => closedResolve());
    socket.once("connect", () => resolve({ socket, received: () => text, closed }));
    socket.once("error", reject);
  });
}

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))]);

const toolsList = (id: number) => `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" })}\n`;
const initialize = `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } })}\n`;
/** A `tools/call` line of about `bytes` bytes (its text is what makes it long). */
const bigCall = (bytes: number) => `${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "reply", arguments: { messages: ["x".repeat(bytes)] } } })}\n`;

describe("the reply tool's socket: messages over the bound", () => {
  it("answers a message over 4 MB with a JSON-RPC error line and closes the connection; others are still served", async () => {
    const { host, records } = await fixture.start();
    const offer = host.offer(KEY, { http: false });
    const connection = await open(socketPathOf(offer));
    connection.socket.write(`${secretOf(offer)}\n${initialize}`);
    connection.socket.write(bigCall(MAX_MESSAGE_BYTES + 1024));
    await within(connection.closed, 15_000, "the endpoint closing the connection");
    const lines = connection.received().trim().split("\n").map((line) => JSON.parse(line) as { id?: number; error?: { code: number; message: string } });
    expect(lines.at(-1)).toEqual({ jsonrpc: "2.0", error: { code: -32600, message: `Message too large: over ${MAX_MESSAGE_BYTES} bytes; the connection is closed` } });
    expect(records.find((r) => r.msg === "reply tool connection sent a message too large; closed")).toMatchObject({ reason: "mcp_message_too_large", limit: MAX_MESSAGE_BYTES });
    const events = fixture.openTurn(host, KEY);
    const client = await fixture.connectStdio(stdioEntry(offer));
    expect((await callReply(client, { messages: ["still here"] })).isError).toBeFalsy();
    expect(events).toHaveLength(1);
  });

  it("through the real `turnstream mcp` relay: the agent reads the error line and the relay exits, no hang", async () => {
    const { host } = await fixture.start();
    const offer = host.offer(KEY, { http: false });
    const relay = spawnTurnstream(["mcp"], { env: envOf(stdioEntry(offer)) });
    let stdout = "";
    relay.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    relay.stdin.on("error", () => undefined);
    const exited = new Promise<number | null>((resolve) => relay.once("close", (code) => resolve(code)));
    relay.stdin.write(initialize);
    relay.stdin.write(bigCall(MAX_MESSAGE_BYTES + 1024));
    // The agent keeps stdin open, as a real one does: the broker's close ends the relay.
    expect(await within(exited, 15_000, "the relay exiting")).toBe(0);
    expect(stdout).toContain('"code":-32600');
    expect(stdout).toContain("Message too large");
    relay.stdin.destroy();
  });

  it("answers a 3 MB message (under the bound) like any other, in well under a second's work", async () => {
    const { host } = await fixture.start();
    const offer = host.offer(KEY, { http: false });
    const connection = await open(socketPathOf(offer));
    connection.socket.write(`${secretOf(offer)}\n${initialize}`);
    const started = performance.now();
    // Written in small pieces: buffering must not grow with the square of the message.
    const line = bigCall(3 * 1024 * 1024);
    for (let at = 0; at < line.length; at += 16 * 1024) connection.socket.write(line.slice(at, at + 16 * 1024));
    expect(await until(() => connection.received().includes('"id":7'), 10_000)).toBe(true);
    const elapsed = performance.now() - started;
    // The schema refuses a message that long: an answer, and the connection stays open.
    expect(connection.received()).toContain('"isError":true');
    connection.socket.write(toolsList(8));
    expect(await until(() => connection.received().includes('"id":8'), 5_000)).toBe(true);
    expect(elapsed).toBeLessThan(5_000);
    connection.socket.destroy();
  });
});

describe("the reply tool's socket: the secret line", () => {
  it("closes a connection whose first line is over 256 bytes, even with its newline in the same write", async () => {
    const { host, records } = await fixture.start();
    const offer = host.offer(KEY, { http: false });
    const connection = await open(socketPathOf(offer));
    connection.socket.write(`${"s".repeat(300)}\n${initialize}`);
    await within(connection.closed, 5_000, "the endpoint closing the connection");
    expect(connection.received()).toBe("");
    expect(records.find((r) => r.reason === "mcp_bad_hello")).toMatchObject({ msg: "reply tool connection did not start with a secret; closed" });
  });
});

describe("the reply tool's socket: a client that does not read its answers", () => {
  it("loses none of 5,000 answers (5 MB of requests) once it reads", async () => {
    const { host } = await fixture.start();
    const offer = host.offer(KEY, { http: false });
    const connection = await open(socketPathOf(offer));
    connection.socket.pause();
    const count = 5_000;
    connection.socket.write(`${secretOf(offer)}\n${initialize}`);
    const pad = "p".repeat(1_000);
    for (let i = 1; i <= count; i++) connection.socket.write(`${JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/list", params: { _meta: { pad } } })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    connection.socket.resume();
    // Each answer is the whole tools/list (reply, ask, send_file and their schemas, made per call by
    // the SDK): 13 s alone on a slower 2-core machine, so a generous bound; losing one never ends.
    expect(await until(() => connection.received().includes(`"id":${count}}`), 45_000)).toBe(true);
    const ids = connection.received().trim().split("\n").map((line) => (JSON.parse(line) as { id: number }).id);
    expect(ids).toEqual(Array.from({ length: count + 1 }, (_, i) => i));
    connection.socket.destroy();
  }, 60_000);
});

describe("the reply tool's socket: how many connections", () => {
  it("keeps at most the cap: silent connections make room for newer ones; when all hold a live secret, a new one is refused", async () => {
    const { host, records } = await fixture.start(undefined, { connectionLimit: 4 });
    const offer = host.offer(KEY, { http: false });
    const path = socketPathOf(offer);
    const silent = await Promise.all(Array.from({ length: 6 }, () => open(path)));
    await within(Promise.all(silent.slice(0, 2).map((connection) => connection.closed)), 5_000, "the two oldest closed");
    expect(host.connections.socket).toBe(4);
    // Four that say a live secret fill the cap; the silent ones made room for them.
    const trusted = await Promise.all(Array.from({ length: 4 }, () => open(path)));
    for (const connection of trusted) connection.socket.write(`${secretOf(offer)}\n${toolsList(1)}`);
    expect(await until(() => trusted.every((connection) => connection.received().includes('"id":1')), 5_000)).toBe(true);
    await within(Promise.all(silent.map((connection) => connection.closed)), 5_000, "every silent connection closed");
    const late = await open(path);
    await within(late.closed, 5_000, "the connection over the cap closed");
    expect(host.connections.socket).toBe(4);
    expect(records.filter((r) => r.msg === "reply tool connection closed: too many open")[0]).toMatchObject({ reason: "mcp_connection_limit", endpoint: "socket", limit: 4 });
    // One goes away: room for the next.
    trusted[0]?.socket.destroy();
    expect(await until(() => host.connections.socket === 3, 5_000)).toBe(true);
    const events = fixture.openTurn(host, KEY);
    const client = await fixture.connectStdio(stdioEntry(offer));
    expect((await callReply(client, { messages: ["room again"] })).isError).toBeFalsy();
    expect(events).toHaveLength(1);
    for (const connection of trusted) connection.socket.destroy();
  });
});

describe("the reply tool's socket: where it lives", () => {
  /** A TMPDIR of `length` characters, made and removed by the test. */
  function longTmpdir(length: number): string {
    const base = join(tmpdir(), `ts-long-${process.pid}-`);
    const path = base + "d".repeat(length - base.length);
    mkdirSync(path, { recursive: true });
    cleanups.push(() => rmSync(path, { recursive: true, force: true }));
    return path;
  }

  it("with a 137-character TMPDIR, makes its 0700 folder under /tmp instead, logs why, works, and leaves nothing behind", async () => {
    const long = longTmpdir(137);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = long;
    cleanups.push(() => (saved === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = saved)));
    const { host, records } = await fixture.start();
    const offer = host.offer(KEY, { http: false });
    const path = socketPathOf(offer);
    expect(Buffer.byteLength(path)).toBeLessThanOrEqual(MAX_SOCKET_PATH_BYTES);
    expect(dirname(dirname(path))).toBe("/tmp");
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(lstatSync(path).isSocket()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(records.find((r) => r.reason === "mcp_socket_dir_fallback")).toMatchObject({ msg: "reply tool socket placed under /tmp: TMPDIR is too long for a unix socket path", path });
    const events = fixture.openTurn(host, KEY);
    const client = await fixture.connectStdio(stdioEntry(offer));
    expect((await callReply(client, { messages: ["fine"] })).isError).toBeFalsy();
    expect(events).toHaveLength(1);
    await host.close();
    expect(existsSync(dirname(path))).toBe(false);
    expect(readdirSync(long)).toEqual([]);
  });

  it("when neither TMPDIR nor the fallback can hold it, fails with one line naming TMPDIR and creates nothing", async () => {
    const long = longTmpdir(137);
    const missing = join(tmpdir(), `ts-no-such-${process.pid}`);
    const failure = await makeSocketDir(long, missing).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ReplyToolEndpointError);
    const { message } = failure as Error;
    expect(message).toContain("TMPDIR is too long for the reply tool's unix socket");
    expect(message).toContain("set TMPDIR to a shorter directory");
    expect(message.split("\n")).toHaveLength(1);
    expect(readdirSync(long)).toEqual([]);
    expect(existsSync(missing)).toBe(false);
  });
});
