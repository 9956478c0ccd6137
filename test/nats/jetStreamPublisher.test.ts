import { JetStreamApiError, JetStreamApiCodes, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { ClosedConnectionError, connect, headers, nanos, NoRespondersError, PermissionViolationError, TimeoutError, type NatsConnection } from "@nats-io/transport-node";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JetStreamPublisher } from "../../src/bus/nats/jetStreamPublisher.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";

const bytes = (text: string) => Buffer.from(text, "utf8");
const msgId = (id: string) => {
  const hdrs = headers();
  hdrs.set("Nats-Msg-Id", id);
  return hdrs;
};

describe.skipIf(!natsServerAvailable())("JetStreamPublisher (real nats-server)", () => {
  let server: NatsServer;
  let nc: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url, noAsyncTraces: true });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "pub", subjects: ["pub.>"], retention: RetentionPolicy.Workqueue, storage: StorageType.File, duplicate_window: nanos(60_000) });
  });
  afterAll(async () => {
    await nc?.close();
    await server?.stop();
  });

  it("resolves with the stream's ack, a repeated msg id as a duplicate of the same sequence, and holds nothing after", async () => {
    const appends = new JetStreamPublisher(nc, { timeoutMs: 5_000 });
    const acks = await Promise.all([appends.publish("pub.a", bytes("1"), msgId("x:1")), appends.publish("pub.b", bytes("2"), msgId("x:2"))]);
    expect(acks).toEqual([
      { stream: "pub", seq: expect.any(Number), duplicate: false, domain: undefined },
      { stream: "pub", seq: expect.any(Number), duplicate: false, domain: undefined },
    ]);
    const again = await appends.publish("pub.a", bytes("1 again"), msgId("x:1"));
    expect(again).toMatchObject({ seq: acks[0]?.seq, duplicate: true });
    expect(await appends.publish("pub.c", bytes("no id"))).toMatchObject({ duplicate: false });
    expect(appends.pending).toBe(0);
    appends.close();
  });

  it("rejects with the client's JetStreamApiError when the stream refuses (a wrong expected sequence)", async () => {
    const appends = new JetStreamPublisher(nc, { timeoutMs: 5_000 });
    const hdrs = headers();
    hdrs.set("Nats-Expected-Last-Subject-Sequence", "999999");
    const err = await appends.publish("pub.cas", bytes("x"), hdrs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JetStreamApiError);
    expect((err as JetStreamApiError).code).toBe(JetStreamApiCodes.StreamWrongLastSequence);
    appends.close();
  });

  it("rejects with NoRespondersError when no stream stores the subject", async () => {
    const appends = new JetStreamPublisher(nc, { timeoutMs: 5_000 });
    const err = await appends.publish("nostream.x", bytes("x")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NoRespondersError);
    appends.close();
  });

  it("rejects with TimeoutError when nobody acks within timeoutMs, oldest first, and drops a late answer", async () => {
    const appends = new JetStreamPublisher(nc, { timeoutMs: 150 });
    const replies: string[] = [];
    // Holds every request and answers it only after the publisher gave up.
    const silent = nc.subscribe("silent.>", {
      callback: (_err, msg) => {
        if (msg.reply !== undefined) replies.push(msg.reply);
      },
    });
    await nc.flush();
    const settled: string[] = [];
    const first = appends.publish("silent.a", bytes("a")).catch((e: unknown) => (settled.push("a"), e));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = appends.publish("silent.b", bytes("b")).catch((e: unknown) => (settled.push("b"), e));
    expect(await first).toBeInstanceOf(TimeoutError);
    expect(settled).toEqual(["a"]); // the second is not yet due
    expect(await second).toBeInstanceOf(TimeoutError);
    expect(appends.pending).toBe(0);
    for (const reply of replies) nc.publish(reply, bytes(JSON.stringify({ stream: "late", seq: 1 })));
    await nc.flush();
    expect(appends.pending).toBe(0);
    silent.unsubscribe();
    appends.close();
  });

  it("fails what is still waiting with ClosedConnectionError when closed, and when its connection closes", async () => {
    const own = await connect({ servers: server.url });
    const silent = own.subscribe("silent.>", { callback: () => undefined });
    await own.flush();
    const closing = new JetStreamPublisher(own, { timeoutMs: 5_000 });
    const waiting = closing.publish("silent.c", bytes("c")).catch((e: unknown) => e);
    closing.close();
    expect(await waiting).toBeInstanceOf(ClosedConnectionError);

    const orphaned = new JetStreamPublisher(own, { timeoutMs: 5_000 });
    const left = orphaned.publish("silent.d", bytes("d")).catch((e: unknown) => e);
    await own.flush();
    silent.unsubscribe();
    await own.close();
    expect(await left).toBeInstanceOf(ClosedConnectionError);
    expect(orphaned.pending).toBe(0);
  });

  it("fails every append at once with the server's PermissionViolationError when it refuses the reply subscription", async () => {
    // A user who may publish anywhere but subscribe to no inbox: no ack could ever arrive.
    const dir = mkdtempSync(join(tmpdir(), "turnstream-perm-"));
    const config = join(dir, "server.conf");
    writeFileSync(config, 'authorization { users = [ { user: "locked", password: "pw", permissions: { publish: ">", subscribe: { deny: "_INBOX.>" } } } ] }\n');
    const locked = await startNatsServer({ args: ["-c", config] });
    const own = await connect({ servers: locked.url, user: "locked", pass: "pw", noAsyncTraces: true });
    try {
      const publisher = new JetStreamPublisher(own, { timeoutMs: 30_000 });
      const first = publisher.publish("pub.locked", bytes("x")).catch((e: unknown) => e);
      await own.flush();
      const started = performance.now();
      expect(await first).toBeInstanceOf(PermissionViolationError);
      expect(await publisher.publish("pub.locked", bytes("y")).catch((e: unknown) => e)).toBeInstanceOf(PermissionViolationError);
      expect(performance.now() - started).toBeLessThan(10_000); // not the 30 s timeout
      expect(publisher.pending).toBe(0);
      publisher.close();
    } finally {
      await own.close();
      await locked.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
