import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openBucket } from "../../src/bus/nats/buckets.js";
import { subjects } from "../../src/wire/index.js";
import { PartitionLeases } from "../../src/scale/partitionLeases.js";
import { captureLogs } from "../helpers/logCapture.js";
import { natsServerAvailable, startNatsServer, type NatsServer } from "../helpers/natsServer.js";

// Workers as separate connections to a real nats-server (2.9.10 on the reference machines): leases
// in a KV bucket with a real TTL. TTL 2 s: ticks every ~667 ms, local deadline 1 s after a renew.
const TTL = 2_000;
const PARTITIONS = 16;
const SETTLE = { timeout: 20_000, interval: 50 };

interface Worker {
  readonly id: string;
  readonly nc: NatsConnection;
  readonly leases: PartitionLeases;
  current: ReadonlySet<number>;
}

/** Workers sharing one lease bucket, watched for two owners of one partition at any instant. */
class Fleet {
  readonly workers: Worker[] = [];
  readonly overlaps: string[] = [];
  readonly logs = captureLogs("info");
  readonly #bucket: string;
  readonly #sampler: NodeJS.Timeout;

  constructor(prefix: string) {
    this.#bucket = subjects(prefix).buckets.leases;
    // Every change of any worker is checked as it happens; the sampler is a second, independent look.
    this.#sampler = setInterval(() => this.check(), 10);
  }

  async join(id: string, drain?: (partition: number) => Promise<void>): Promise<Worker> {
    const nc = await connect({ servers: server.url });
    const kv = await openBucket(nc, this.#bucket, { ttlMs: TTL });
    const leases = new PartitionLeases({ kv, workerId: id, partitions: PARTITIONS, ttlMs: TTL, logger: this.logs.logger, ...(drain ? { drain } : {}) });
    const worker: Worker = { id, nc, leases, current: new Set() };
    this.workers.push(worker);
    leases.owned.subscribe((owned) => {
      worker.current = owned;
      this.check();
    });
    leases.start();
    return worker;
  }

  check(): void {
    const seen = new Map<number, string>();
    for (const worker of this.workers) {
      for (const partition of worker.current) {
        const other = seen.get(partition);
        if (other !== undefined) this.overlaps.push(`partition ${partition}: ${other} and ${worker.id}`);
        seen.set(partition, worker.id);
      }
    }
  }

  counts(): Record<string, number> {
    return Object.fromEntries(this.workers.map((w) => [w.id, w.current.size]));
  }

  covered(workers = this.workers): number {
    return new Set(workers.flatMap((w) => [...w.current])).size;
  }

  async close(): Promise<void> {
    clearInterval(this.#sampler);
    await Promise.all(this.workers.map((w) => w.leases.stop()));
    await Promise.all(this.workers.map((w) => (w.nc.isClosed() ? undefined : w.nc.close())));
  }
}

let server: NatsServer;
let fleets: Fleet[] = [];
let prefixes = 0;
const fleet = () => {
  const f = new Fleet(`leases${++prefixes}`);
  fleets.push(f);
  return f;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!natsServerAvailable())("PartitionLeases over nats-server", () => {
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });
  afterEach(async () => {
    await Promise.all(fleets.map((f) => f.close()));
    fleets = [];
  });

  it("one worker owns all 16 partitions", { timeout: 60_000 }, async () => {
    const f = fleet();
    const a = await f.join("a");
    await vi.waitFor(() => expect(a.current.size).toBe(PARTITIONS), SETTLE);
    await sleep(2 * TTL); // renewed well past the TTL
    expect(a.current.size).toBe(PARTITIONS);
    expect(f.logs.records.filter((r) => r.msg === "partition lease lost")).toEqual([]);
  });

  it("a second worker brings the split to 8/8, never with two owners of one partition", { timeout: 60_000 }, async () => {
    const f = fleet();
    const a = await f.join("a");
    await vi.waitFor(() => expect(a.current.size).toBe(PARTITIONS), SETTLE);
    await f.join("b");
    await vi.waitFor(() => expect(f.counts()).toEqual({ a: 8, b: 8 }), SETTLE);
    await sleep(2 * TTL); // and it stays there
    expect(f.counts()).toEqual({ a: 8, b: 8 });
    expect(f.overlaps).toEqual([]);
  });

  it("a third worker joins: each holds at most ceil(16/3), together all 16", { timeout: 60_000 }, async () => {
    const f = fleet();
    await Promise.all([f.join("a"), f.join("b")]);
    await vi.waitFor(() => expect(f.counts()).toEqual({ a: 8, b: 8 }), SETTLE);
    await f.join("c");
    await vi.waitFor(() => {
      expect(Object.values(f.counts()).sort()).toEqual([5, 5, 6]);
      expect(f.covered()).toBe(PARTITIONS);
    }, SETTLE);
    expect(f.overlaps).toEqual([]);
  });

  it("a worker that stops gracefully hands its partitions to the others", { timeout: 60_000 }, async () => {
    const f = fleet();
    const [, , c] = await Promise.all([f.join("a"), f.join("b"), f.join("c")]);
    await vi.waitFor(() => expect(f.covered()).toBe(PARTITIONS), SETTLE);
    await c.leases.stop();
    expect(c.current.size).toBe(0);
    await vi.waitFor(() => expect(f.counts()).toEqual({ a: 8, b: 8, c: 0 }), SETTLE);
    expect(f.overlaps).toEqual([]);
    const released = f.logs.records.filter((r) => r.msg === "partition lease released" && r.workerId === "c");
    expect(released.length).toBeGreaterThan(0);
    expect(released.every((r) => r.reason === "shutdown")).toBe(true);
  });

  it("a crashed worker's partitions are owned again within 2 × TTL", { timeout: 60_000 }, async () => {
    const f = fleet();
    const [a, b] = await Promise.all([f.join("a"), f.join("b")]);
    await vi.waitFor(() => expect(f.counts()).toEqual({ a: 8, b: 8 }), SETTLE);
    const orphaned = [...b.current];

    // kill -9: the connection goes away with no deletes; the process's own timers find NATS gone.
    const crashedAt = performance.now();
    await b.nc.close();
    await vi.waitFor(() => expect(b.current.size).toBe(0), SETTLE);
    const droppedMs = performance.now() - crashedAt;
    await vi.waitFor(() => expect(orphaned.every((p) => a.current.has(p))).toBe(true), { timeout: 4 * TTL, interval: 10 });
    const takeoverMs = performance.now() - crashedAt;
    console.info(`lease takeover after a crash: ${Math.round(takeoverMs)} ms (TTL ${TTL} ms); the crashed worker stopped owning after ${Math.round(droppedMs)} ms`);

    expect(takeoverMs).toBeLessThan(2 * TTL + 1_000);
    expect(a.current.size).toBe(PARTITIONS);
    expect(f.overlaps).toEqual([]);
    expect(f.logs.records.filter((r) => r.msg === "partition lease lost" && r.workerId === "b").every((r) => r.reason === "renew_overdue")).toBe(true);
  });

  it("drain is awaited before a release: nobody else acquires the partition until it resolved", { timeout: 60_000 }, async () => {
    const f = fleet();
    const pending = new Map<number, () => void>();
    let holding = true; // later drains (the shutdown in afterEach) resolve at once
    const a = await f.join("a", (partition) => (holding ? new Promise<void>((resolve) => pending.set(partition, resolve)) : Promise.resolve()));
    await vi.waitFor(() => expect(a.current.size).toBe(PARTITIONS), SETTLE);
    const b = await f.join("b");
    await vi.waitFor(() => expect(pending.size).toBe(8), SETTLE);

    await sleep(2 * TTL); // far past the TTL: the draining leases stay a's, renewed meanwhile
    expect(b.current.size).toBe(0);
    expect(a.current.size).toBe(PARTITIONS);
    const observer = await connect({ servers: server.url });
    try {
      const kv = await openBucket(observer, subjects(`leases${prefixes}`).buckets.leases, { ttlMs: TTL });
      for (const partition of pending.keys()) expect((await kv.get(`partition.${partition}`))?.string()).toBe("a");
    } finally {
      await observer.close();
    }

    holding = false;
    for (const resolve of pending.values()) resolve();
    await vi.waitFor(() => expect(f.counts()).toEqual({ a: 8, b: 8 }), SETTLE);
    expect([...b.current].sort((x, y) => x - y)).toEqual([...pending.keys()].sort((x, y) => x - y));
    expect(f.overlaps).toEqual([]);
  });
});
