import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { Cluster, type Member } from "./cluster.js";
import { until, userEvent } from "./stack.js";

/** The offline ACP agent that is a real MCP SDK client of the reply tool. */
export const mcpAgentPath = fileURLToPath(new URL("../../fixtures/agents/mcp-agent.mjs", import.meta.url));

/** Descriptors a process holds now. */
export const descriptorsOf = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** Resident memory of a process, in MB. */
export function rssMbOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Math.round(Number(kb) / 1024);
}

/** Lowers a running process's descriptor limit (soft and hard), as `ulimit -n` would have at its start. */
export function limitDescriptors(pid: number, nofile: number): void {
  const result = spawnSync("prlimit", ["--pid", String(pid), `--nofile=${nofile}:${nofile}`], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`prlimit failed: ${result.stderr || result.error?.message}`);
  const limits = readFileSync(`/proc/${pid}/limits`, "utf8");
  expect(limits).toMatch(new RegExp(`Max open files\\s+${nofile}\\s+${nofile}`));
}

/** One raw connection of a client that is not ours: it never closes its side. */
export interface HostileConnection {
  readonly socket: Socket;
  /** The response's status code, once its head arrived. */
  status(): number | undefined;
  /** Resolves when the broker closed the connection. */
  readonly closed: Promise<void>;
}

/** Opens a connection to 127.0.0.1:`port` and writes `request` (nothing when undefined). */
export function hostileConnection(port: number, request?: string): Promise<HostileConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let head = "";
    let closedResolve: () => void = () => undefined;
    const closed = new Promise<void>((done) => (closedResolve = done));
    socket.setEncoding("latin1").on("data", (chunk: string) => (head.length < 64 ? (head += chunk) : undefined));
    socket.on("error", () => undefined);
    socket.on("close", () => closedResolve());
    socket.once("connect", () => {
      if (request !== undefined) socket.write(request);
      resolve({ socket, closed, status: () => Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]) || undefined });
    });
    socket.once("error", reject);
  });
}

/** `GET /mcp` without a bearer, asking for the server-initiated stream. */
export const unauthenticatedGet = "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";

export interface FloodedBroker {
  readonly cluster: Cluster;
  readonly member: Member;
  readonly pid: number;
  /** The broker's reply tool URL, from its `reply tool endpoints listening` line. */
  readonly url: string;
  readonly port: number;
  readonly connectionLimit: number;
  /** Sends `script` (an mcp-agent keyword) in a new chat and resolves with its replies' texts. */
  chat(script: string, chat: string): Promise<string[]>;
}

/**
 * A `turnstream run` process (embedded bus, structured mode) whose agent is the mcp-agent calling
 * the reply tool over HTTP, its descriptors limited to `nofile`.
 */
export async function startFloodedBroker(nofile: number): Promise<FloodedBroker> {
  const cluster = await Cluster.start({
    config: { delivery: { mode: "structured", bubble_delay_ms: 0 }, reactions: { enabled: false } },
    agentScript: mcpAgentPath,
    agentEnv: { MCP_AGENT_HTTP: "1" },
  });
  let member: Member;
  let pid: number;
  let listening: Record<string, unknown> | undefined;
  try {
    member = await cluster.add("all");
    if (member.child.pid === undefined) throw new Error("the broker has no pid");
    pid = member.child.pid;
    limitDescriptors(pid, nofile);
    listening = member.logs.find((line) => line.msg === "reply tool endpoints listening");
    if (typeof listening?.url !== "string") throw new Error("the broker logged no reply tool endpoints");
    // "broker ready" comes before its gateway socket is open: an event broadcast before would reach no one.
    if (!(await until(() => cluster.gateway.brokerCount === 1, 10_000))) throw new Error("the broker did not connect to the dev gateway");
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  const url = listening.url as string;
  const chat = async (script: string, chatId: string): Promise<string[]> => {
    const mine = () => cluster.replies.filter((reply) => reply.channel.id === chatId);
    cluster.gateway.broadcast(userEvent(script, { channel: { id: chatId, type: "dm" } }));
    if (!(await until(() => mine().length >= 3, 30_000))) throw new Error(`chat ${chatId} got ${mine().length} replies: ${JSON.stringify(cluster.logged("turn failed"))}`);
    return mine().map((reply) => reply.content.text);
  };
  return { cluster, member, pid, url, port: Number(new URL(url).port), connectionLimit: Number(listening?.connectionLimit), chat };
}

/** What the flood did to the broker. */
export interface FloodFigures {
  readonly baseline: number;
  readonly peak: number;
  readonly after: number;
  readonly rssBefore: number;
  readonly rssAfter: number;
  readonly answered401: number;
}

/**
 * Issue 36's attack, scaled to `count`: `count` unauthenticated `GET /mcp` streams opened at once
 * and never closed by their client, then `count` connections that send nothing, held while a new
 * chat runs. Asserts the broker closed every one of the first, held at most its cap of the
 * second, and that new chats and their reply tool calls (over HTTP) worked throughout.
 */
export async function floodAndChat(broker: FloodedBroker, count: number): Promise<FloodFigures> {
  const { pid, port, url, connectionLimit, cluster } = broker;
  expect(await broker.chat("reply3", "before")).toEqual(["one", "two", "three"]);
  const baseline = descriptorsOf(pid);
  const rssBefore = rssMbOf(pid);
  let peak = baseline;
  let answered401 = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, descriptorsOf(pid))), 10);
  try {
    // An initialize without the bearer: 401 with a Bearer challenge, before any MCP.
    const initialize = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } }),
    });
    expect(initialize.status).toBe(401);
    expect(initialize.headers.get("www-authenticate")).toBe('Bearer realm="turnstream"');

    const streams = await Promise.all(Array.from({ length: count }, () => hostileConnection(port, unauthenticatedGet)));
    expect(await until(() => streams.every((stream) => stream.socket.closed || stream.socket.destroyed || stream.socket.readableEnded), 30_000)).toBe(true);
    await Promise.all(streams.map((stream) => stream.closed));
    // None of them was served a stream: each got 401, or was closed (over the cap) before being read.
    expect(streams.filter((stream) => stream.status() !== undefined && stream.status() !== 401).map((stream) => stream.status())).toEqual([]);
    answered401 = streams.filter((stream) => stream.status() === 401).length;
    expect(answered401).toBeGreaterThan(0);

    const silent = await Promise.all(Array.from({ length: count }, () => hostileConnection(port)));
    // The broker keeps at most its cap of them; the rest were closed to make room.
    expect(await until(() => silent.filter((connection) => !connection.socket.destroyed && !connection.socket.readableEnded).length <= connectionLimit, 15_000)).toBe(true);
    expect(await broker.chat("reply3", "during")).toEqual(["one", "two", "three"]);
    for (const connection of silent) connection.socket.destroy();
  } finally {
    clearInterval(sampler);
  }
  expect(await broker.chat("reply3", "after")).toEqual(["one", "two", "three"]);
  const calls = cluster.agentEvents().filter((line) => line.startsWith("tool-result "));
  expect(calls).toHaveLength(3);
  for (const line of calls) expect(line).toContain('"isError":false');
  expect(cluster.agentEvents().filter((line) => /^mcp-connected \S+ http$/.test(line))).toHaveLength(3);
  expect(cluster.logged("turn failed")).toEqual([]);
  expect(cluster.logged("reply tool request refused: no live bearer").length).toBeGreaterThan(0);
  await until(() => descriptorsOf(pid) <= baseline + 10, 10_000);
  return { baseline, peak, after: descriptorsOf(pid), rssBefore, rssAfter: rssMbOf(pid), answered401 };
}
