import { createServer } from "node:net";
import { RetentionPolicy, StorageType, jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { firstValueFrom } from "rxjs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Bus } from "../../src/bus/bus.js";
import { BusSetupError, InvalidSubjectError, PayloadTooLargeError } from "../../src/bus/errors.js";
import { NatsBus } from "../../src/bus/nats/natsBus.js";
import { busSection } from "../../src/config/sections/bus.js";
import { subjects } from "../../src/wire/index.js";
import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";
import { Pipeline } from "../../src/pipeline/pipeline.js";
import { createSender } from "../../src/pipeline/send.js";
import { SendError } from "../../src/wire/index.js";
import { captureLogs } from "../helpers/logCapture.js";
import { recordingInstruments } from "../helpers/recordingInstruments.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";
import { persist, record, waitFor } from "./busContract.js";

const available = natsServerAvailable();
const TOKEN = "tok-51d2-secret";

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function setupError(connecting: Promise<unknown>): Promise<BusSetupError> {
  const error = await connecting.then(
    () => new Error("expected NatsBus.connect to fail"),
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(BusSetupError);
  return error as BusSetupError;
}

describe.skipIf(!available)("NatsBus set-up", () => {
  let server: NatsServer;
  const buses: Bus[] = [];
  let prefixes = 0;
  const nextPrefix = () => `setup${(prefixes += 1)}`;
  const open = async (fields: Record<string, unknown>) => {
    const bus = await NatsBus.connect({ bus: busSection.parse({ url: server.url, ...fields }) });
    buses.push(bus);
    return bus;
  };

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("creates the turn stream: work queue, file storage, the configured duplicate window", async () => {
    const prefix = nextPrefix();
    const bus = await open({ prefix, duplicate_window_secs: 45 });
    const info = await (await jetstreamManager(bus.connection)).streams.info(subjects(prefix).stream);
    expect(info.config).toMatchObject({
      subjects: [`${prefix}.turn.>`],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: 45_000_000_000,
    });
    expect(bus.config.prefix).toBe(prefix);
    // A second bus of the same deployment finds the stream as it wants it.
    await open({ prefix, duplicate_window_secs: 45 });
  });

  it("refuses a turn stream whose subjects or retention conflict, naming both values and what to do", async () => {
    const prefix = nextPrefix();
    const name = subjects(prefix).stream;
    const nc = await connect({ servers: server.url });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name, subjects: [`${prefix}.elsewhere.>`], retention: RetentionPolicy.Limits });
    await nc.close();

    const error = await setupError(open({ prefix }));
    expect(error.message).toContain(`JetStream stream "${name}" exists with subjects [${prefix}.elsewhere.>], not [${prefix}.turn.>]`);
    expect(error.message).toContain("retention limits, not workqueue");
    expect(error.message).toContain(`nats stream rm ${name}`);
  });

  it("refuses a turn stream with another duplicate window", async () => {
    const prefix = nextPrefix();
    await open({ prefix, duplicate_window_secs: 120 });
    const error = await setupError(open({ prefix, duplicate_window_secs: 60 }));
    expect(error.message).toContain("duplicate window 120 s, not 60 s (bus.duplicate_window_secs)");
  });

  it("fails with BusSetupError naming the URL, without credentials, when nothing listens", async () => {
    const port = await closedPort();
    const error = await setupError(NatsBus.connect({ bus: busSection.parse({ url: `nats://127.0.0.1:${port}`, token: TOKEN }) }));
    expect(error.message).toMatch(new RegExp(`^cannot connect to NATS at nats://127\\.0\\.0\\.1:${port}: `));
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).not.toContain(TOKEN);

    const inUrl = await setupError(NatsBus.connect({ bus: busSection.parse({ url: `nats://edge:${TOKEN}@127.0.0.1:${port}` }) }));
    expect(inUrl.message).toContain(`nats://127.0.0.1:${port}`);
    expect(inUrl.message).not.toContain(TOKEN);
  });

  it("refuses a server without JetStream, saying how to start it", async () => {
    const plain = await startNatsServer({ jetstream: false });
    try {
      const error = await setupError(NatsBus.connect({ bus: busSection.parse({ url: plain.url }) }));
      expect(error.message).toMatch(new RegExp(`^JetStream is not enabled on ${plain.url.replaceAll(".", "\\.")}: start nats-server with -js`));
    } finally {
      await plain.stop();
    }
  });

  it("persists and consumes only turn subjects (InvalidSubjectError otherwise)", async () => {
    const prefix = nextPrefix();
    const bus = await open({ prefix });
    await expect(persist(bus, `${prefix}.send.discord`, "x")).rejects.toBeInstanceOf(InvalidSubjectError);
    await expect(firstValueFrom(bus.consume(`${prefix}.>`, { durable: "all" }))).rejects.toBeInstanceOf(InvalidSubjectError);
  });
});

describe.skipIf(!available)("NatsBus with token auth", () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer({ args: ["--auth", TOKEN] });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("connects with bus.token or a token in the URL", async () => {
    for (const fields of [{ url: server.url, token: TOKEN }, { url: server.url.replace("nats://", `nats://${TOKEN}@`) }]) {
      const bus = await NatsBus.connect({ bus: busSection.parse({ ...fields, prefix: "auth" }) });
      try {
        const got = record(bus.subscribe<string>("auth.ping"));
        bus.publish("auth.ping", "pong");
        await waitFor(() => got.values.length === 1, "the message");
      } finally {
        await bus.close();
      }
    }
  });

  it("fails with BusSetupError without the token, or with a wrong one, and never shows it", async () => {
    const missing = await setupError(NatsBus.connect({ bus: busSection.parse({ url: server.url }) }));
    expect(missing.message).toMatch(/^cannot connect to NATS at nats:\/\/127\.0\.0\.1:\d+: .*authorization/i);
    const wrong = await setupError(NatsBus.connect({ bus: busSection.parse({ url: server.url, token: `${TOKEN}-wrong` }) }));
    expect(wrong.message).not.toContain(TOKEN);
  });
});

describe.skipIf(!available)("NatsBus with user and password", () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer({ args: ["--user", "turnstream", "--pass", "s3cret-pass"] });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("connects with bus.user and bus.password, and refuses a wrong password without showing it", async () => {
    const bus = await NatsBus.connect({ bus: busSection.parse({ url: server.url, user: "turnstream", password: "s3cret-pass", prefix: "userpass" }) });
    try {
      const got = record(bus.subscribe<string>("userpass.ping"));
      bus.publish("userpass.ping", "pong");
      await waitFor(() => got.values.length === 1, "the message");
    } finally {
      await bus.close();
    }
    const wrong = await setupError(NatsBus.connect({ bus: busSection.parse({ url: server.url, user: "turnstream", password: "not-it" }) }));
    expect(wrong.message).toMatch(/authorization/i);
    expect(wrong.message).not.toContain("not-it");
  });
});

describe.skipIf(!available)("NatsBus payloads", () => {
  let server: NatsServer;
  let bus: NatsBus;
  const logs = captureLogs("debug");
  beforeAll(async () => {
    server = await startNatsServer();
    bus = await NatsBus.connect({ bus: busSection.parse({ url: server.url, prefix: "payloads" }), logger: logs.logger });
  });
  afterAll(async () => {
    await bus?.close();
    await server?.stop();
  });

  it("drops a core message that is not JSON with a warning, and goes on", async () => {
    const got = record(bus.subscribe<{ ok: boolean }>("payloads.in"));
    bus.connection.publish("payloads.in", "{not json");
    bus.publish("payloads.in", { ok: true });
    await waitFor(() => got.values.length === 1, "the valid message");
    expect(got.values.map((m) => m.data)).toEqual([{ ok: true }]);
    expect(got.errors).toEqual([]);
    expect(logs.records).toContainEqual(expect.objectContaining({ msg: "bus message dropped", reason: "invalid_json", subject: "payloads.in" }));
  });

  it("drops a durable message that is not JSON with a warning, and is not handed it again", async () => {
    const s = subjects("payloads");
    const js = (await jetstreamManager(bus.connection)).jetstream();
    await js.publish(s.turn(3), "<html>");
    await persist(bus, s.turn(3), "fine");
    const w = record(bus.consume<string>(s.turn(3), { durable: s.partitionConsumer(3) }));
    await waitFor(() => w.values.length === 1, "the valid message");
    expect(w.values.map((m) => m.data)).toEqual(["fine"]);
    expect(logs.records).toContainEqual(expect.objectContaining({ msg: "bus message dropped", reason: "invalid_json", subject: s.turn(3) }));
  });

  it("refuses a message over the server's max_payload at once, typed, on every path; the request lets go of its reply inbox", async () => {
    const s = subjects("payloads");
    const maxPayloadBytes = bus.maxMessageBytes();
    expect(maxPayloadBytes).toBe(1024 * 1024); // nats-server's default
    const big = "x".repeat(1024 * 1024);
    const tooLarge = { name: "PayloadTooLargeError", maxPayloadBytes, bytes: expect.any(Number) as unknown };
    const subscriptions = () => (bus.connection as unknown as { protocol: { subscriptions: { size(): number } } }).protocol.subscriptions.size();
    const before = subscriptions();
    const started = performance.now();
    await expect(persist(bus, s.turn(5), big, { msgId: "big-1" })).rejects.toMatchObject(tooLarge);
    for (let i = 0; i < 20; i++) await expect(firstValueFrom(bus.request(s.send("telegram"), big, { timeoutMs: 60_000 }))).rejects.toMatchObject(tooLarge);
    expect(() => bus.publish("payloads.big", big)).toThrow(PayloadTooLargeError);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(subscriptions()).toBe(before);
    // The message's own size: the JSON payload and the append's headers (its Nats-Msg-Id).
    const refused = await persist(bus, s.turn(5), big, { msgId: "big-2" }).catch((err: unknown) => err as PayloadTooLargeError);
    expect(refused).toBeInstanceOf(PayloadTooLargeError);
    expect((refused as PayloadTooLargeError).bytes).toBeGreaterThan(big.length + 2);
    // The connection is as good as before.
    expect(await persist(bus, s.turn(5), "small", { msgId: "small-1" })).toMatchObject({ duplicate: false });
  });

  it("a worker's send over max_payload fails at once as SendError too_large, counted, never asked again; the next send goes", async () => {
    const names = subjects("payloads");
    const requests: number[] = [];
    const edge = bus.subscribe<OutboundMessage>(names.send("telegram"), { queue: names.sendQueue }).subscribe((request) => {
      requests.push(JSON.stringify(request.data).length);
      request.respond({ ok: true, messageId: "m1" });
    });
    try {
      const { instruments, calls } = recordingInstruments();
      const send = createSender({ bus, subjects: names, pipeline: new Pipeline(), timeoutMs: 60_000, retries: 3, instruments });
      const message = (text: string): OutboundMessage => ({ reply_to: "evt-1", platform: "telegram", channel: { id: "chat-1" }, content: { type: "text", text } });
      const started = performance.now();
      const failure = await firstValueFrom(send(message("z".repeat(1024 * 1024)))).catch((err: unknown) => err);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(failure).toBeInstanceOf(SendError);
      expect(failure).toMatchObject({ code: "too_large", cause: { name: "PayloadTooLargeError", maxPayloadBytes: 1024 * 1024 } });
      expect((failure as SendError).message).toMatch(/^the message is too large to reach an edge \(\d+ bytes, the NATS server's max_payload is 1048576\)$/);
      expect(calls.filter(([method]) => method === "sendFailed")).toEqual([["sendFailed", "too_large"]]);
      expect(await firstValueFrom(send(message("fits")))).toEqual({ messageId: "m1" });
      expect(requests).toHaveLength(1);
    } finally {
      edge.unsubscribe();
    }
  });

  it("carries undefined as an empty payload and null as null", async () => {
    const got = record(bus.subscribe<unknown>("payloads.empty"));
    bus.publish("payloads.empty", undefined);
    bus.publish("payloads.empty", null);
    await waitFor(() => got.values.length === 2, "both");
    expect(got.values.map((m) => m.data)).toEqual([undefined, null]);
  });
});

describe.skipIf(!available)("NatsBus connected()", () => {
  let server: NatsServer;
  const buses: NatsBus[] = [];
  const open = async (prefix: string) => {
    const bus = await NatsBus.connect({ bus: busSection.parse({ url: server.url, prefix }), logger: captureLogs().logger });
    buses.push(bus);
    return bus;
  };
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("is true once connected, false while the server is away, true again only once the client has reconnected", async () => {
    const bus = await open("connected");
    expect(bus.connected()).toBe(true);
    const statuses = record(bus.status());
    // Sampled on a timer, after the client's status events of that instant were handled: each flip
    // of connected() is paired with the status changes seen by then.
    const flips: Array<{ connected: boolean; seen: string[] }> = [];
    let last = true;
    const sampler = setInterval(() => {
      const now = bus.connected();
      if (now !== last) flips.push({ connected: now, seen: statuses.values.map((change) => change.type) });
      last = now;
    }, 5);
    try {
      const restarted = server.restart({ downMs: 1_500 });
      await waitFor(() => !bus.connected(), "connected() to turn false once the server went away", 10_000);
      await restarted;
      await waitFor(() => bus.connected(), "connected() to turn true again after the reconnect", 20_000);
      await waitFor(() => flips.length === 2, "the sampler to see both flips", 1_000);
    } finally {
      clearInterval(sampler);
    }
    expect(flips.map((flip) => flip.connected)).toEqual([false, true]);
    expect(flips[0]?.seen).toContain("disconnected");
    expect(flips[0]?.seen).not.toContain("reconnected");
    expect(flips[1]?.seen).toContain("reconnected");
    // Back for real: a round trip through the restarted server.
    const got = record(bus.subscribe<string>("connected.ping"));
    await bus.connection.flush();
    bus.publish("connected.ping", "pong");
    await waitFor(() => got.values.length === 1, "a message through the restarted server");
    expect(bus.connected()).toBe(true);
  });

  it("is false from close() on, at once", async () => {
    const bus = await open("closing");
    expect(bus.connected()).toBe(true);
    const closing = bus.close();
    expect(bus.connected()).toBe(false);
    await closing;
    expect(bus.connected()).toBe(false);
  });

  it("is false once the connection closed under the bus", async () => {
    const bus = await open("underneath");
    await bus.connection.close();
    await waitFor(() => !bus.connected(), "connected() to turn false after the connection closed", 5_000);
  });
});
