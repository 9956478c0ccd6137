import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import type { ReplyToolHost } from "../../src/mcp/replyToolHost.js";
import { until } from "../helpers/stack.js";
import { callReply, httpEntry, secretOf, useReplyToolHost } from "../helpers/replyToolHost.js";

// The reply tool's HTTP endpoint against clients that are not ours: over real sockets, to an
// in-process host (the spawned broker's flood is test/e2e/replyToolEndpoints.test.ts).

const KEY = "telegram:77";
const fixture = useReplyToolHost();

interface RawExchange {
  /** The status line's code, once a response head arrived. */
  status?: number;
  head: string;
  /** The server closed the connection. */
  closed: Promise<void>;
  socket: Socket;
}

/** A raw connection to the endpoint, sending `request` (nothing when undefined) and never closing itself. */
function raw(url: string, request?: string): Promise<RawExchange> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let closedResolve: () => void = () => undefined;
    const exchange: RawExchange = { head: "", socket, closed: new Promise((done) => (closedResolve = done)) };
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      exchange.head += chunk;
      const code = /^HTTP\/1\.1 (\d{3})/.exec(exchange.head)?.[1];
      if (code !== undefined) exchange.status = Number(code);
    });
    socket.on("error", () => undefined);
    socket.on("close", () => closedResolve());
    socket.once("connect", () => {
      if (request !== undefined) socket.write(request);
      resolve(exchange);
    });
    socket.once("error", reject);
  });
}

const get = (url: string, headers = "") => `GET ${new URL(url).pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n${headers}\r\n`;

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms))]);

async function started(limit?: number): Promise<{ host: ReplyToolHost; url: string; secret: string; records: Awaited<ReturnType<typeof fixture.start>>["records"] }> {
  const { host, records } = await fixture.start(undefined, limit === undefined ? {} : { connectionLimit: limit });
  const offer = host.offer(KEY, { http: true });
  return { host, url: httpEntry(offer).url, secret: secretOf(offer), records };
}

describe("the reply tool's HTTP endpoint", () => {
  it("answers GET /mcp without a bearer 401 with a Bearer challenge and closes the connection: no stream", async () => {
    const { url } = await started();
    const exchange = await raw(url, get(url));
    await within(exchange.closed, 10_000, "the server closing the connection");
    expect(exchange.status).toBe(401);
    expect(exchange.head).toMatch(/\r\nWWW-Authenticate: Bearer realm="turnstream"\r\n/i);
    expect(exchange.head).not.toMatch(/text\/event-stream/i);
  });

  it("answers GET with a live bearer 405 (stateless: no server-initiated stream), Allow: POST", async () => {
    const { url, secret } = await started();
    const response = await fetch(url, { headers: { authorization: `Bearer ${secret}`, accept: "text/event-stream" } });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toContain("stateless");
  });

  it("answers another path 404 and closes the connection", async () => {
    const { url } = await started();
    const exchange = await raw(url, get(new URL("/", url).href));
    await within(exchange.closed, 10_000, "the server closing the connection");
    expect(exchange.status).toBe(404);
  });

  it("300 unauthenticated GETs held open by their client: each is closed by the server, none is a stream, and a real call still works", async () => {
    const { host, url, secret, records } = await started();
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, host.connections.http)), 5);
    const exchanges = await Promise.all(Array.from({ length: 300 }, () => raw(url, get(url))));
    await within(Promise.all(exchanges.map((exchange) => exchange.closed)), 15_000, "every connection closed by the server");
    clearInterval(sampler);
    // Answered 401, or (when more arrived at once than the cap holds) closed before being read: never a 200.
    expect(exchanges.filter((exchange) => exchange.status !== undefined && exchange.status !== 401)).toEqual([]);
    expect(exchanges.some((exchange) => exchange.status === 401)).toBe(true);
    expect(most).toBeLessThanOrEqual(52);
    expect(await until(() => host.connections.http === 0, 5_000)).toBe(true);
    const events = fixture.openTurn(host, KEY);
    const client = await fixture.connectHttp(url, { Authorization: `Bearer ${secret}` });
    expect((await callReply(client, { messages: ["still here"] })).isError).toBeFalsy();
    expect(events).toHaveLength(1);
    await host.close();
    // Every refusal is counted, in a few lines.
    const refused = records.filter((r) => r.msg === "reply tool request refused: no live bearer");
    const limited = records.filter((r) => r.msg === "reply tool connection closed: too many open");
    const counted = (lines: typeof records) => lines.reduce((sum, r) => sum + Number(r.count), 0);
    expect(counted(refused) + counted(limited)).toBe(300);
    // Each kind: its first line, one per 5 s window while they went on, and the rest at close.
    expect(refused.length + limited.length).toBeLessThanOrEqual(6);
    expect(refused.every((r) => r.reason === "mcp_unauthorized")).toBe(true);
  });

  it("connections that never send a request hold at most the cap, and a real client still gets in", async () => {
    const { host, url, secret, records } = await started(8);
    const silent = await Promise.all(Array.from({ length: 20 }, () => raw(url)));
    // The 12 oldest made room for newer ones.
    expect(await until(() => host.connections.http === 8, 5_000)).toBe(true);
    const events = fixture.openTurn(host, KEY);
    const client = await fixture.connectHttp(url, { Authorization: `Bearer ${secret}` });
    expect((await callReply(client, { messages: ["in"] })).isError).toBeFalsy();
    expect(events).toHaveLength(1);
    expect(host.connections.http).toBeLessThanOrEqual(8);
    expect(records.find((r) => r.msg === "reply tool connection closed: too many open")).toMatchObject({ reason: "mcp_connection_limit", endpoint: "http", limit: 8, count: 1 });
    for (const exchange of silent) exchange.socket.destroy();
  });
});
