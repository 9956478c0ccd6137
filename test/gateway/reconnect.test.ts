import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { NEVER } from "rxjs";
import { WebSocketServer, type WebSocket } from "ws";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { createBroker } from "../../src/broker/createBroker.js";
import { DevGateway } from "../../src/devgateway/devGateway.js";
import { GatewayConnector, type GatewayConnectorOptions } from "../../src/gateway/connector.js";
import { captureLogs, type LogRecord } from "../helpers/logCapture.js";
import { until } from "../helpers/stack.js";
import { defaultIngress } from "../helpers/ingressRules.js";

const message: OutboundMessage = { reply_to: "evt-1", platform: "telegram", channel: { id: "chat-1" }, content: { type: "text", text: "on it" } };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

type Misbehaviour = "close 1000" | "close 4001" | "terminate" | "no pong" | "stops reading";

/** A real `ws` server that misbehaves with every connection it accepts; counts connections and pings. */
async function badGateway(misbehaviour: Misbehaviour, { hello }: { hello?: object } = {}) {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", autoPong: misbehaviour !== "no pong" });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const state = { connections: 0, pings: [] as number[], closes: [] as number[] };
  wss.on("connection", (ws: WebSocket & { _socket?: { pause(): void } }) => {
    const n = state.connections++;
    state.pings[n] = 0;
    ws.on("ping", () => (state.pings[n] = (state.pings[n] ?? 0) + 1));
    ws.on("close", (code) => state.closes.push(code));
    if (hello !== undefined) ws.send(JSON.stringify({ schema: "openab.gateway.hello.v1", protocol_version: 1, ...hello }));
    if (misbehaviour === "close 1000") ws.close(1000, "bye");
    else if (misbehaviour === "close 4001") ws.close(4001, "go away");
    else if (misbehaviour === "terminate") ws.terminate();
    // Let the hello out first; then the gateway reads nothing more (pings pile up unanswered in the kernel).
    else if (misbehaviour === "stops reading") setTimeout(() => ws._socket?.pause(), 50);
  });
  const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`;
  cleanup.push(() => {
    for (const client of wss.clients) client.terminate();
    return new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return { url, state };
}

function connector(url: string, options: Partial<GatewayConnectorOptions> = {}): { connector: GatewayConnector; records: LogRecord[] } {
  const { logger, records } = captureLogs();
  const made = new GatewayConnector({
    url,
    ingress: defaultIngress,
    logger,
    maxFrameBytes: 1 << 20,
    clientVersion: "test",
    legacyAckTimeoutMs: 60_000,
    requiredAckTimeoutMs: 60_000,
    streaming: false,
    streamingPlaceholder: true,
    ...options,
  });
  cleanup.push(() => made.close());
  made.start();
  return { connector: made, records };
}

const logged = (records: LogRecord[], msg: string) => records.filter((r) => r.msg === msg);
const closers: Misbehaviour[] = ["close 1000", "close 4001", "terminate"];

describe("reconnecting to a gateway that accepts and then closes", () => {
  it("makes at most ~10 attempts in 10 s with the default backoff (1 s doubling), for close 1000, 4001 and terminate", async () => {
    const runs = await Promise.all(
      closers.map(async (misbehaviour) => {
        const gateway = await badGateway(misbehaviour);
        return { misbehaviour, gateway, ...connector(gateway.url) };
      }),
    );
    await sleep(10_000);
    for (const { misbehaviour, gateway, records } of runs) {
      // Attempts at 0, 1, 3, 7 s; a slow machine only makes fewer. Before the fix: thousands.
      expect(gateway.state.connections, misbehaviour).toBeGreaterThanOrEqual(2);
      expect(gateway.state.connections, misbehaviour).toBeLessThanOrEqual(5);
      const warnings = logged(records, "gateway disconnected");
      expect(warnings.length, misbehaviour).toBeLessThanOrEqual(gateway.state.connections);
      expect(warnings.map((w) => w.retryInMs)).toEqual([1_000, 2_000, 4_000, 8_000].slice(0, warnings.length));
    }
  }, 30_000);

  it.each(closers)("backs off after each short-lived connection (%s): waits 50, 100, 200, 400, 400 ms as injected", async (misbehaviour) => {
    const gateway = await badGateway(misbehaviour);
    const { records } = connector(gateway.url, { backoff: { initialMs: 50, maxMs: 400 } });
    expect(await until(() => logged(records, "gateway disconnected").length >= 5, 15_000)).toBe(true);
    const warnings = logged(records, "gateway disconnected").slice(0, 5);
    expect(warnings.map((w) => w.retryInMs)).toEqual([50, 100, 200, 400, 400]);
    expect(warnings[0]).toMatchObject({ level: 40, code: misbehaviour === "close 4001" ? 4001 : misbehaviour === "close 1000" ? 1000 : 1006, upMs: expect.any(Number) });
    expect(logged(records, "gateway connection failed, retrying")).toHaveLength(0);
  });
});

describe("WebSocket keepalive", () => {
  it.each<Misbehaviour>(["no pong", "stops reading"])("abandons a gateway that pings go unanswered on (%s) after two missed pongs, and reconnects", async (misbehaviour) => {
    const gateway = await badGateway(misbehaviour);
    const { records } = connector(gateway.url, { keepaliveMs: 100, backoff: { initialMs: 50 } });
    expect(await until(() => gateway.state.connections >= 2, 10_000)).toBe(true);
    const timedOut = logged(records, "gateway keepalive timed out");
    expect(timedOut[0]).toMatchObject({ level: 40, reason: "keepalive_timeout", missedPongs: 2, keepaliveMs: 100 });
    // Abandoned at the third tick: the first connection lived ~300 ms, so it was short-lived and backed off.
    expect(logged(records, "gateway disconnected")[0]).toMatchObject({ code: 1006, retryInMs: 50 });
    expect(logged(records, "gateway disconnected")[0]?.upMs).toBeGreaterThanOrEqual(250);
    if (misbehaviour === "no pong") expect(await until(() => gateway.state.pings[0] === 2, 5_000)).toBe(true);
  });

  it("keeps a connection whose gateway answers pings (the dev gateway: ws answers them itself)", async () => {
    const gateway = await DevGateway.start({});
    cleanup.push(() => gateway.close());
    // Without its pongs this connection would be abandoned within 600 ms.
    const { connector: made, records } = connector(gateway.url, { token: gateway.token, keepaliveMs: 200 });
    expect(await until(() => made.isConnected, 10_000)).toBe(true);
    await sleep(2_000);
    expect(made.isConnected).toBe(true);
    expect(logged(records, "gateway keepalive timed out")).toHaveLength(0);
    expect(logged(records, "connected to gateway")).toHaveLength(1);
  });

  it("is set by [gateway] keepalive_secs (fractions allowed): a broker abandons a gateway that stopped answering pings", async () => {
    const gateway = await badGateway("no pong");
    const { logger, records } = captureLogs();
    const broker = createBroker({ config: { gateway: { url: gateway.url, keepalive_secs: 0.1 } }, logger, turnHandler: () => NEVER, env: {} });
    cleanup.push(() => broker.stop({ graceMs: 0 }).then(() => undefined));
    await broker.start();
    expect(await until(() => logged(records, "gateway keepalive timed out").length > 0, 10_000)).toBe(true);
    expect(logged(records, "gateway keepalive timed out")[0]).toMatchObject({ missedPongs: 2, keepaliveMs: 100 });
  });

  it("sends no pings with keepalive 0", async () => {
    const gateway = await badGateway("no pong");
    const { connector: made } = connector(gateway.url, { keepaliveMs: 0 });
    expect(await until(() => made.isConnected, 10_000)).toBe(true);
    await sleep(500);
    expect(gateway.state.pings[0]).toBe(0);
    expect(gateway.state.connections).toBe(1);
  });

  it.each([
    { mode: "required acks (send_ack negotiated)", hello: { capabilities: { telegram: { send_ack: true } } } },
    { mode: "legacy acks (no handshake)", hello: undefined },
  ])("fails a send waiting for its ack on the abandoned connection at once with connection_lost, not after the ack timeout: $mode", async ({ hello }) => {
    const gateway = await badGateway("stops reading", hello === undefined ? {} : { hello });
    const { connector: made, records } = connector(gateway.url, { keepaliveMs: 200, backoff: { initialMs: 50 } });
    expect(await until(() => made.isConnected, 10_000)).toBe(true);
    if (hello !== undefined) expect(await until(() => made.capabilities("telegram")?.sendAck === true, 5_000)).toBe(true);
    const started = performance.now();
    // The ack timeouts are 60 s: only the keepalive can end this wait.
    await expect(made.send(message, { wantAck: true })).rejects.toMatchObject({ name: "SendError", code: "connection_lost" });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(logged(records, "gateway keepalive timed out")).toHaveLength(1);
    expect(logged(records, "legacy gateway reply timed out")).toHaveLength(0);
    expect(await until(() => gateway.state.connections >= 2, 10_000)).toBe(true);
  });
});

describe("a send between connections", () => {
  it("waits for the next connection and goes out on it", async () => {
    const gateway = await DevGateway.start({});
    cleanup.push(() => gateway.close());
    const frames: string[] = [];
    gateway.received.subscribe((r) => r.kind === "reply" && frames.push(r.frame.content.text));
    const { connector: made, records } = connector(gateway.url, { token: gateway.token, legacyAckTimeoutMs: 5_000, backoff: { initialMs: 200 } });
    expect(await until(() => made.isConnected, 10_000)).toBe(true);
    gateway.disconnectAll();
    expect(await until(() => !made.isConnected, 5_000)).toBe(true);
    const receipt = await made.send(message, { wantAck: true });
    expect(receipt.messageId).toMatch(/^gw-/);
    expect(frames).toEqual(["on it"]);
    expect(logged(records, "connected to gateway")).toHaveLength(2);
  });

  it("fails with disconnected when no connection opens within the legacy ack timeout", async () => {
    const gateway = await DevGateway.start({});
    const { connector: made } = connector(gateway.url, { token: gateway.token, legacyAckTimeoutMs: 300, backoff: { initialMs: 50 } });
    expect(await until(() => made.isConnected, 10_000)).toBe(true);
    await gateway.close();
    expect(await until(() => !made.isConnected, 5_000)).toBe(true);
    const started = performance.now();
    await expect(made.send(message, { wantAck: false })).rejects.toMatchObject({ name: "SendError", code: "disconnected" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it("fails at once with disconnected when the connector closes meanwhile", async () => {
    const gateway = await DevGateway.start({});
    const { connector: made } = connector(gateway.url, { token: gateway.token, legacyAckTimeoutMs: 60_000, backoff: { initialMs: 50 } });
    expect(await until(() => made.isConnected, 10_000)).toBe(true);
    await gateway.close();
    expect(await until(() => !made.isConnected, 5_000)).toBe(true);
    const sent = made.send(message, { wantAck: false });
    await made.close();
    await expect(sent).rejects.toMatchObject({ code: "disconnected" });
  });
});
