import { afterEach, describe, expect, it } from "vitest";
import { LogLevel, SocketModeClient } from "@slack/socket-mode";
import WebSocket from "ws";
import type { FakeSlack } from "./index.js";
import { someConversations, until, useFakeSlack } from "./slackFixture.js";

/**
 * What the adapter must pass to @slack/socket-mode 3.1.0 to reach the fake: `appToken` (the xapp- token)
 * and `clientOptions: { slackApiUrl }` — the client's own WebClient calls `apps.connections.open` with the
 * app token as `Authorization: Bearer` and connects the `url` it answers (ws:// here; undici's WebSocket,
 * `undici` being a peer dependency the install brought). It acks every envelope with
 * `{"envelope_id", "payload": {}}` when the listener calls `ack()`; on `disconnect` it closes, and after
 * any close reconnects after `clientPingTimeout` × consecutive failures (5 s by default) through a new
 * `apps.connections.open`. It pings every `clientPingTimeout / 3` and reconnects when no pong comes within
 * `clientPingTimeout`; the ws server answers pings by itself.
 */
const clients: SocketModeClient[] = [];
const sockets: WebSocket[] = [];
/** What the clients logged at warn and error (a cut connection is logged as a WebSocket error, then retried). */
const clientErrors: string[] = [];

function socketClient(fake: FakeSlack): SocketModeClient {
  const record = (...message: unknown[]) => void clientErrors.push(message.map(String).join(" "));
  const logger = { debug: () => {}, info: () => {}, warn: record, error: record, setLevel: () => {}, getLevel: () => LogLevel.WARN, setName: () => {} };
  const client = new SocketModeClient({ appToken: fake.appToken, logger, clientPingTimeout: 1000, clientOptions: { slackApiUrl: fake.apiUrl } });
  clients.push(client);
  return client;
}

/** A bare WebSocket through apps.connections.open: every frame it receives, parsed; it never acks by itself. */
async function rawConnection(fake: FakeSlack, url?: string): Promise<{ ws: WebSocket; frames: Record<string, unknown>[]; url: string }> {
  const opened = url ?? ((await (await fetch(`${fake.apiUrl}apps.connections.open`, { method: "POST", headers: { authorization: `Bearer ${fake.appToken}` } })).json()) as { url: string }).url;
  const ws = new WebSocket(opened);
  ws.on("error", () => {});
  sockets.push(ws);
  const frames: Record<string, unknown>[] = [];
  ws.on("message", (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, frames, url: opened };
}

/** Registered after useFakeSlack in each suite, so it runs before the fake closes (hooks run last-in, first-out). */
async function disconnectAll(): Promise<void> {
  clientErrors.length = 0;
  await Promise.all(clients.splice(0).map((client) => client.disconnect()));
  for (const ws of sockets.splice(0)) ws.terminate();
}

describe("fake Slack Socket Mode, driven by SocketModeClient", () => {
  const slack = useFakeSlack();
  afterEach(disconnectAll);

  it("SocketModeClient opens its URL with apps.connections.open and the app token; hello gives num_connections, debug_info and the app id", async () => {
    const { fake } = slack;
    const started = await socketClient(fake).start();
    expect(started).toMatchObject({ ok: true, url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/link\//) });
    expect(fake.callsOf("apps.connections.open").map((call) => [call.token, call.httpMethod, call.ok])).toEqual([["app", "POST", true]]);
    const second = await rawConnection(fake);
    await until(() => second.frames.length > 0);
    expect(second.frames[0]).toEqual({ type: "hello", num_connections: 2, debug_info: { host: expect.any(String), build_number: 1, approximate_connection_time: 18060 }, connection_info: { app_id: fake.bot.appId } });
  });

  it("a ticket opens one connection: the same URL again is refused with 403", async () => {
    const { fake } = slack;
    const first = await rawConnection(fake);
    const again = new WebSocket(first.url);
    again.on("error", () => {});
    const status = await new Promise<number>((resolve) => again.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0)));
    expect(status).toBe(403);
    expect(fake.socket.openConnections).toBe(1);
  });

  it("delivers events_api envelopes the client emits by event type; every ack is recorded with its latency", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const client = socketClient(fake);
    const seen: { type: string; text: unknown; retry: number }[] = [];
    for (const type of ["message", "app_mention"]) {
      client.on(type, async ({ event, ack, retry_num }: { event: { text: string }; ack: () => Promise<void>; retry_num: number }) => {
        await ack();
        seen.push({ type, text: event.text, retry: retry_num });
      });
    }
    await client.start();
    fake.from(alice).message(general.id, "@turnstream ping");
    await until(() => fake.socket.ackLatencies().length === 2);
    expect(seen).toEqual([
      { type: "message", text: `${fake.mention(fake.bot)} ping`, retry: 0 },
      { type: "app_mention", text: `${fake.mention(fake.bot)} ping`, retry: 0 },
    ]);
    expect(fake.socket.sent.map((envelope) => [envelope.type, envelope.retry_attempt, envelope.ackPayload])).toEqual([
      ["events_api", 0, {}],
      ["events_api", 0, {}],
    ]);
    expect(Math.max(...fake.socket.ackLatencies())).toBeLessThan(3000);
    expect(fake.socket.unacked()).toEqual([]);
  });

  it("slash_commands (accepting a response payload) and interactive block_actions reach the client as their own types", async () => {
    const { fake, web } = slack;
    const { general, alice } = someConversations(fake);
    const client = socketClient(fake);
    const seen: Record<string, unknown>[] = [];
    for (const type of ["slash_commands", "interactive"]) {
      client.on(type, async ({ body, ack, accepts_response_payload }: { body: Record<string, unknown>; ack: () => Promise<void>; accepts_response_payload: boolean }) => {
        await ack();
        seen.push({ type, accepts: accepts_response_payload, what: body.command ?? body.type });
      });
    }
    await client.start();
    fake.from(alice).slashCommand(general.id, "/cancel");
    const button = await web.chat.postMessage({ channel: general.id, text: "working", blocks: [{ type: "actions", elements: [{ type: "button", text: { type: "plain_text", text: "Cancel" }, action_id: "openab_cancel" }] }] });
    fake.from(alice).press(general.id, button.ts!, "openab_cancel");
    await until(() => seen.length === 2);
    expect(seen).toEqual([
      { type: "slash_commands", accepts: true, what: "/cancel" },
      { type: "interactive", accepts: false, what: "block_actions" },
    ]);
  });

  it("an envelope not acked within 3 s comes again under a new envelope_id with retry_attempt 1 and retry_reason timeout, the event_id kept", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const client = socketClient(fake);
    const seen: { retry: number; reason: string; eventId: string }[] = [];
    client.on("message", async ({ body, ack, retry_num, retry_reason }: { body: { event_id: string }; ack: () => Promise<void>; retry_num: number; retry_reason: string }) => {
      seen.push({ retry: retry_num, reason: retry_reason, eventId: body.event_id });
      if (retry_num > 0) await ack();
    });
    await client.start();
    fake.from(alice).message(general.id, "slow handler");
    await until(() => seen.length === 2 && fake.socket.ackLatencies().length === 1, 10_000);
    const [first, retry] = fake.socket.sent;
    expect(seen).toEqual([
      { retry: 0, reason: "", eventId: first!.event_id },
      { retry: 1, reason: "timeout", eventId: first!.event_id },
    ]);
    expect(retry!.envelope_id).not.toBe(first!.envelope_id);
    expect(retry!.sentAt - first!.sentAt).toBeGreaterThanOrEqual(2990);
    expect(first!.ackedAt).toBeUndefined();
  });

  it("events raised while no connection is open wait, and come right after the next hello", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    fake.from(alice).message(general.id, "early");
    expect(fake.socket.pendingPayloads()).toHaveLength(1);
    const client = socketClient(fake);
    const texts: string[] = [];
    client.on("message", async ({ event, ack }: { event: { text: string }; ack: () => Promise<void> }) => {
      await ack();
      texts.push(event.text);
    });
    await client.start();
    await until(() => texts.length === 1);
    expect(texts).toEqual(["early"]);
  });

  it("disconnect (refresh_requested): the client closes, opens a new URL and reconnects — one socket at a time", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const client = socketClient(fake);
    const texts: string[] = [];
    client.on("message", async ({ event, ack }: { event: { text: string }; ack: () => Promise<void> }) => {
      await ack();
      texts.push(event.text);
    });
    await client.start();
    const reconnected = new Promise((resolve) => client.once("connected", resolve));
    fake.socket.requestDisconnect("refresh_requested");
    await reconnected;
    expect(fake.callsOf("apps.connections.open")).toHaveLength(2);
    expect([fake.socket.connectionsOpened, fake.socket.maxOpenConnections]).toEqual([2, 1]);
    fake.from(alice).message(general.id, "after refresh");
    await until(() => texts.length === 1);
    expect(fake.socket.sent.at(-1)!.connection).toBe(2);
  });

  it("a connection cut without a close handshake: the client reconnects by itself", async () => {
    const { fake } = slack;
    const client = socketClient(fake);
    await client.start();
    const reconnected = new Promise((resolve) => client.once("connected", resolve));
    fake.socket.dropConnections();
    await reconnected;
    expect([fake.socket.connectionsOpened, fake.socket.openConnections, fake.socket.maxOpenConnections]).toEqual([2, 1, 1]);
    expect(clientErrors.some((line) => line.includes("WebSocket error"))).toBe(true);
  });

  it("counts connections per app: two clients are two at once, and envelopes go to each in turn", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const one = await rawConnection(fake);
    const two = await rawConnection(fake);
    expect([fake.socket.openConnections, fake.socket.maxOpenConnections]).toEqual([2, 2]);
    fake.from(alice).message(general.id, "a");
    fake.from(alice).message(general.id, "b");
    await until(() => one.frames.length === 2 && two.frames.length === 2);
    expect([one.frames[1]!.type, two.frames[1]!.type]).toEqual(["events_api", "events_api"]);
    one.ws.close();
    await until(() => fake.socket.openConnections === 1);
    expect(fake.socket.maxOpenConnections).toBe(2);
  });
});

describe("fake Slack Socket Mode: retries and limits", () => {
  const slack = useFakeSlack({ ackTimeoutMs: 200, maxRetries: 2, maxConnections: 1 });
  afterEach(disconnectAll);

  it("an Events API envelope never acked is sent 1 + maxRetries times, then given up", async () => {
    const { fake } = slack;
    const { general, alice } = someConversations(fake);
    const deaf = await rawConnection(fake);
    fake.from(alice).message(general.id, "anyone?");
    await until(() => fake.socket.undelivered.length === 1);
    const envelopes = deaf.frames.filter((frame) => frame.type === "events_api");
    expect(envelopes.map((frame) => [frame.retry_attempt, frame.retry_reason])).toEqual([
      [0, ""],
      [1, "timeout"],
      [2, "timeout"],
    ]);
    expect(new Set(envelopes.map((frame) => (frame.payload as { event_id: string }).event_id)).size).toBe(1);
    expect(fake.socket.undelivered).toEqual([{ type: "events_api", event_id: fake.socket.sent[0]!.event_id, attempts: 3 }]);
  });

  it("one connection beyond maxConnections gets disconnect too_many_websockets and is closed", async () => {
    const { fake } = slack;
    await rawConnection(fake);
    const extra = await rawConnection(fake);
    const closed = new Promise((resolve) => extra.ws.once("close", resolve));
    await closed;
    expect(extra.frames).toEqual([{ type: "disconnect", reason: "too_many_websockets", debug_info: { host: expect.any(String) } }]);
    expect(fake.socket.maxOpenConnections).toBe(1);
  });
});
