import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { firstValueFrom, filter } from "rxjs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DurableMessage } from "../../src/bus/bus.js";
import { ConsumerConflictError, NoRespondersError } from "../../src/bus/errors.js";
import type { BusConnectionStatus } from "../../src/bus/nats/connectionStatus.js";
import { ConsumerLostError } from "../../src/bus/nats/consumerLostError.js";
import { NatsBus } from "../../src/bus/nats/natsBus.js";
import { busSection } from "../../src/config/sections/bus.js";
import { subjects } from "../../src/wire/index.js";
import { captureLogs } from "../helpers/logCapture.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";
import { persist, quiet, record, seen, waitFor, waitUntil, type Recorder } from "./busContract.js";

describe.skipIf(!natsServerAvailable())("NatsBus durable consumers", () => {
  let server: NatsServer;
  const buses: NatsBus[] = [];
  let prefixes = 0;
  const nextPrefix = () => `durable${(prefixes += 1)}`;
  const open = async (prefix: string, fields: Record<string, unknown> = {}, logger = captureLogs().logger) => {
    const bus = await NatsBus.connect({ bus: busSection.parse({ url: server.url, prefix, ...fields }), logger });
    buses.push(bus);
    return bus;
  };
  const manager = (bus: NatsBus): Promise<JetStreamManager> => jetstreamManager(bus.connection);

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("creates a durable pull consumer: explicit ack, the filter, maxAckPending, ack wait, deliver all", async () => {
    const prefix = nextPrefix();
    const s = subjects(prefix);
    const bus = await open(prefix, { ack_wait_secs: 7 });
    await persist(bus, s.turn(2), "a");
    const w = record(bus.consume<string>(s.turn(2), { durable: s.partitionConsumer(2), maxAckPending: 4 }));
    await waitFor(() => w.values.length === 1, "a");
    const info = await (await manager(bus)).consumers.info(s.stream, s.partitionConsumer(2));
    expect(info.config).toMatchObject({
      durable_name: s.partitionConsumer(2),
      ack_policy: "explicit",
      deliver_policy: "all",
      filter_subject: s.turn(2),
      max_ack_pending: 4,
      ack_wait: 7_000_000_000,
    });
  });

  it("keeps a held message alive past the ack wait (working()), and redelivers it when its holder vanishes", async () => {
    const prefix = nextPrefix();
    const s = subjects(prefix);
    const holderBus = await open(prefix, { ack_wait_secs: 1 });
    const otherBus = await open(prefix, { ack_wait_secs: 1 });
    await persist(holderBus, s.turn(0), "long turn");
    const holder = record(holderBus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => holder.values.length === 1, "the first delivery");
    const other = record(otherBus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));

    // Three ack waits pass while the turn runs: no redelivery, anywhere.
    await quiet(3_000);
    expect(seen(holder)).toEqual(["long turn#1"]);
    expect(seen(other)).toEqual([]);

    // kill -9: the connection goes away without ack or nak; the server redelivers after the ack wait.
    const vanished = performance.now();
    await holderBus.connection.close();
    await waitFor(() => other.values.length === 1, "the redelivery", 15_000);
    expect(seen(other)).toEqual(["long turn#2"]);
    expect(performance.now() - vanished).toBeGreaterThan(500);
    other.values[0]?.ack();
  });

  it("keeps a claimed message alive past the ack wait after its subscription ended, until its claimer acks it", async () => {
    const prefix = nextPrefix();
    const s = subjects(prefix);
    const claimerBus = await open(prefix, { ack_wait_secs: 1 });
    const otherBus = await open(prefix, { ack_wait_secs: 1 });
    await persist(claimerBus, s.turn(0), "turn under way");
    const claimer = record(claimerBus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => claimer.values.length === 1, "the first delivery");
    claimer.values[0]?.claim();
    // The partition moves: the claimer's subscription ends, another takes the durable.
    claimer.subscription.unsubscribe();
    const other = record(otherBus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    // Three ack waits pass while the turn still runs: no redelivery, anywhere.
    await quiet(3_000);
    expect(seen(other)).toEqual([]);
    claimer.values[0]?.ack();
    await quiet(1_500);
    expect(seen(other)).toEqual([]);
    const info = await (await manager(otherBus)).consumers.info(s.stream, s.partitionConsumer(0));
    expect(info.num_ack_pending).toBe(0);
  });

  it("hands held messages back when the bus closes", async () => {
    const prefix = nextPrefix();
    const s = subjects(prefix);
    const closing = await open(prefix);
    const staying = await open(prefix);
    await persist(closing, s.turn(0), "a");
    const first = record(closing.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => first.values.length === 1, "a");
    await closing.close();
    expect(first.completed()).toBe(true);
    const second = record(staying.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => second.values.length === 1, "the message handed back");
    expect(seen(second)).toEqual(["a#2"]);
  });

  it("refuses a durable whose filter overlaps another's on the work queue (ConsumerConflictError)", async () => {
    const prefix = nextPrefix();
    const s = subjects(prefix);
    const bus = await open(prefix);
    await persist(bus, s.turn(0), "a");
    const all = record(bus.consume<string>(s.turns, { durable: s.turnConsumer }));
    await waitFor(() => all.values.length === 1, "a");
    const error = await firstValueFrom(bus.consume(s.turn(0), { durable: s.partitionConsumer(0) })).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ConsumerConflictError);
    expect((error as Error).message).toContain(`filter "${s.turn(0)}" overlaps another durable consumer of stream "${s.stream}"`);
  });

  it("updates the ack wait of an existing durable to the configured one", async () => {
    const prefix = nextPrefix();
    const s = subjects(prefix);
    const before = await open(prefix, { ack_wait_secs: 30 });
    await persist(before, s.turn(0), "a");
    const w = record(before.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => w.values.length === 1, "a");
    w.values[0]?.ack();
    w.subscription.unsubscribe();

    const after = await open(prefix, { ack_wait_secs: 2 });
    await persist(after, s.turn(0), "b");
    const v = record(after.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => v.values.length === 1, "b");
    expect((await (await manager(after)).consumers.info(s.stream, s.partitionConsumer(0))).config.ack_wait).toBe(2_000_000_000);
  });

  it("errors with ConsumerLostError when the consumer is deleted underneath; subscribing again recreates it", async () => {
    const prefix = nextPrefix();
    const s = subjects(prefix);
    const logs = captureLogs();
    const bus = await open(prefix, {}, logs.logger);
    await persist(bus, s.turn(0), "a");
    const w = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => w.values.length === 1, "a");

    await (await manager(bus)).consumers.delete(s.stream, s.partitionConsumer(0));
    await waitFor(() => w.errors.length === 1, "the consumer to be reported lost", 15_000);
    expect(w.errors[0]).toBeInstanceOf(ConsumerLostError);
    expect(w.errors[0]).toMatchObject({ durable: s.partitionConsumer(0), stream: s.stream });
    expect(logs.records).toContainEqual(expect.objectContaining({ msg: "bus consumer failed", durable: s.partitionConsumer(0) }));

    const again = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => again.values.length === 1, "a, from the recreated consumer");
    expect(again.values[0]?.data).toBe("a");
  });

  it("errors with ConsumerLostError when the stream is deleted underneath", async () => {
    const prefix = nextPrefix();
    const s = subjects(prefix);
    const bus = await open(prefix);
    await persist(bus, s.turn(0), "a");
    const w = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => w.values.length === 1, "a");

    await (await manager(bus)).streams.delete(s.stream);
    await waitFor(() => w.errors.length === 1, "the consumer to be reported lost", 15_000);
    expect(w.errors[0]).toBeInstanceOf(ConsumerLostError);
    const later = await firstValueFrom(bus.consume(s.turn(1), { durable: s.partitionConsumer(1) })).catch((err: unknown) => err);
    expect(later).toBeInstanceOf(ConsumerLostError);
    // With no stream to store it, a persist finds nobody listening.
    await expect(persist(bus, s.turn(0), "b")).rejects.toBeInstanceOf(NoRespondersError);
  });
});

describe.skipIf(!natsServerAvailable())("NatsBus across a nats-server restart", () => {
  let server: NatsServer;
  let bus: NatsBus | undefined;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await bus?.close();
    await server?.stop();
  });

  it("reports disconnected/reconnected, keeps consuming, and acks a message held across the restart", async () => {
    const s = subjects("restart");
    bus = await NatsBus.connect({ bus: busSection.parse({ url: server.url, prefix: "restart" }), logger: captureLogs().logger });
    const statuses = record(bus.status());
    const core = record(bus.subscribe<string>("restart.core"));
    await persist(bus, s.turn(0), "before");
    const w: Recorder<DurableMessage<string>> = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
    await waitFor(() => w.values.length === 1, "before");

    const reconnected = firstValueFrom(bus.status().pipe(filter((change: BusConnectionStatus) => change.type === "reconnected")));
    await server.restart();
    await reconnected;
    expect(statuses.values.map((change) => change.type)).toEqual(expect.arrayContaining(["disconnected", "reconnected"]));

    w.values[0]?.ack(); // held across the restart
    await persist(bus, s.turn(0), "after");
    await waitFor(() => w.values.length === 2, "after, on the same subscription", 20_000);
    expect(seen(w)).toEqual(["before#1", "after#1"]);
    w.values[1]?.ack();
    bus.publish("restart.core", "still subscribed");
    await waitFor(() => core.values.length === 1, "a core message after the restart");
    expect(w.errors).toEqual([]);

    const jsm = await jetstreamManager(bus.connection);
    await waitUntil(async () => (await jsm.streams.info(s.stream)).state.messages === 0, "both acks to remove their messages");
  });
});
