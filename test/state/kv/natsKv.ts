import type { KV } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll } from "vitest";
import { type BucketOptions, openBucket } from "../../../src/bus/nats/buckets.js";
import { JetStreamPublisher } from "../../../src/bus/nats/jetStreamPublisher.js";
import { BucketWrites } from "../../../src/state/kv/bucketWrites.js";
import { startNatsServer, type NatsServer, type NatsServerOptions } from "../../helpers/natsServer.js";

export interface NatsKvFixture {
  /** A new connection, closed after the suite (one per simulated worker). */
  connect(): Promise<NatsConnection>;
  /** A fresh bucket (a new name each call) on the suite's shared connection; returns its name too. */
  bucket(options?: BucketOptions): Promise<{ readonly kv: KV; readonly name: string }>;
  /** The bucket `name` opened over `nc`, as another worker would open it. */
  open(nc: NatsConnection, name: string, options?: BucketOptions): Promise<KV>;
  /** A fresh bucket with the writes `openSharedState` gives its stores (`BucketWrites` on the suite's shared connection). */
  bucketWithWrites(options?: BucketOptions): Promise<{ readonly kv: KV; readonly name: string; readonly writes: BucketWrites }>;
}

/** Starts a private nats-server for the enclosing `describe` (with `serverOptions`, e.g. a config file); call it at the top of one. */
export function natsKvFixture(serverOptions: NatsServerOptions = {}): NatsKvFixture {
  let server: NatsServer | undefined;
  let shared: NatsConnection | undefined;
  const connections: NatsConnection[] = [];
  let buckets = 0;
  let appends: JetStreamPublisher | undefined;

  beforeAll(async () => {
    server = await startNatsServer(serverOptions);
  });
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
    await server?.stop();
  });

  const fixture: NatsKvFixture = {
    async connect() {
      if (server === undefined) throw new Error("natsKvFixture: the server is not started (call it inside a describe)");
      const nc = await connect({ servers: server.url });
      connections.push(nc);
      return nc;
    },
    async bucket(options = {}) {
      shared ??= await fixture.connect();
      const name = `test_${++buckets}`;
      return { kv: await openBucket(shared, name, options), name };
    },
    open: (nc, name, options = {}) => openBucket(nc, name, options),
    async bucketWithWrites(options = {}) {
      const { kv, name } = await fixture.bucket(options);
      if (shared === undefined) throw new Error("natsKvFixture: no shared connection");
      appends ??= new JetStreamPublisher(shared, { timeoutMs: 5_000 });
      return { kv, name, writes: new BucketWrites(appends, kv, name) };
    },
  };
  return fixture;
}
