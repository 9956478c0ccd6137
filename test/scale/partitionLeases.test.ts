import { VirtualTimeScheduler } from "rxjs";
import { describe, expect, it } from "vitest";
import { PartitionLeases, type PartitionLeasesOptions } from "../../src/scale/partitionLeases.js";
import { captureLogs, type LogRecord } from "../helpers/logCapture.js";
import { FakeLeaseBucket } from "./fakeLeaseBucket.js";

// Lease logic in virtual time over an in-memory bucket: exact deadlines, no sockets. TTL 4 s, so a
// tick every 1 s and the local deadline 2 s after a renew was sent.
const TTL = 4_000;

interface Rig {
  scheduler: VirtualTimeScheduler;
  bucket: FakeLeaseBucket;
  records: LogRecord[];
  /** Moves virtual time forward in small steps, letting the bucket's promises settle between them. */
  advance(ms: number): Promise<void>;
  worker(workerId: string, options?: Partial<PartitionLeasesOptions>): { leases: PartitionLeases; owned: () => number[]; completed: () => boolean };
}

function rig(partitions = 4): Rig {
  const scheduler = new VirtualTimeScheduler();
  const bucket = new FakeLeaseBucket(() => scheduler.now(), TTL);
  const { logger, records } = captureLogs("debug");
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  const advance = async (ms: number) => {
    await settle();
    const end = scheduler.frame + ms;
    while (scheduler.frame < end) {
      const step = Math.min(end, scheduler.frame + 10);
      scheduler.maxFrames = step;
      scheduler.flush();
      scheduler.frame = step;
      await settle();
    }
  };
  const worker = (workerId: string, options: Partial<PartitionLeasesOptions> = {}) => {
    const leases = new PartitionLeases({ kv: bucket.bucket, workerId, partitions, ttlMs: TTL, logger, scheduler, ...options });
    let current: number[] = [];
    let completed = false;
    leases.owned.subscribe({ next: (set) => (current = [...set].sort((a, b) => a - b)), complete: () => (completed = true) });
    return { leases, owned: () => current, completed: () => completed };
  };
  return { scheduler, bucket, records, advance, worker };
}

const messages = (records: LogRecord[], msg: string) => records.filter((r) => r.msg === msg);

describe("PartitionLeases (virtual time, in-memory bucket)", () => {
  it("announces itself first, acquires every free partition on the next tick, and logs each", async () => {
    const { bucket, records, advance, worker } = rig();
    const a = worker("a");
    a.leases.start();
    await advance(0);
    expect(bucket.peek("worker.a")).toBe("a");
    expect(a.owned()).toEqual([]);

    await advance(1_000);
    expect(a.owned()).toEqual([0, 1, 2, 3]);
    expect([0, 1, 2, 3].map((p) => bucket.peek(`partition.${p}`))).toEqual(["a", "a", "a", "a"]);
    expect(messages(records, "partition lease acquired").map((r) => [r.partition, r.workerId])).toEqual([
      [0, "a"],
      [1, "a"],
      [2, "a"],
      [3, "a"],
    ]);
  });

  it("renews every quarter of the TTL, so its leases outlive the TTL many times over", async () => {
    const { records, advance, worker } = rig();
    const a = worker("a");
    a.leases.start();
    await advance(20_000);
    expect(a.owned()).toEqual([0, 1, 2, 3]);
    expect(messages(records, "partition lease lost")).toEqual([]);
    expect(messages(records, "partition lease tick failed")).toEqual([]);
  });

  it("stops owning half a TTL after the last renew when the bucket stops answering, then recovers", async () => {
    const { bucket, records, advance, worker } = rig();
    const a = worker("a");
    a.leases.start();
    await advance(1_500); // acquired by the tick at 1000 (renewedAt 1000)
    bucket.down = true;
    await advance(1_499); // t = 2999: the renew sent at 2000 hangs; still inside the deadline
    expect(a.owned()).toEqual([0, 1, 2, 3]);
    await advance(1); // t = 3000 = 1000 + TTL/2: dropped without waiting for NATS
    expect(a.owned()).toEqual([]);
    expect(messages(records, "partition lease lost").map((r) => [r.partition, r.reason])).toEqual([
      [0, "renew_overdue"],
      [1, "renew_overdue"],
      [2, "renew_overdue"],
      [3, "renew_overdue"],
    ]);

    await advance(1_000); // t = 4000: the hung tick timed out at 3333 (a third of the TTL)
    expect(messages(records, "partition lease tick failed")[0]).toMatchObject({ workerId: "a", reason: "timeout" });

    bucket.down = false; // the old leases age out at 5000; later ticks take them again
    await advance(3_000);
    expect(a.owned()).toEqual([0, 1, 2, 3]);
  });

  it("loses a lease at once when its renew conflicts, and does not take it back while held", async () => {
    const { bucket, records, advance, worker } = rig();
    const a = worker("a");
    a.leases.start();
    await advance(1_500);
    await bucket.put("partition.2", "intruder"); // another writer: the revision moved on
    await advance(1_000);
    expect(a.owned()).toEqual([0, 1, 3]);
    expect(messages(records, "partition lease lost")).toEqual([expect.objectContaining({ partition: 2, workerId: "a", reason: "conflict" })]);
    await advance(1_000); // the intruder's entry lives until 5500
    expect(a.owned()).toEqual([0, 1, 3]);
  });

  it("two workers split evenly and never own one partition at the same instant", async () => {
    const { advance, worker } = rig(8);
    const a = worker("a");
    const b = worker("b");
    const overlaps: number[] = [];
    const check = () => overlaps.push(...a.owned().filter((p) => b.owned().includes(p)));
    a.leases.owned.subscribe(check);
    b.leases.owned.subscribe(check);
    a.leases.start();
    await advance(5_000);
    expect(a.owned()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    b.leases.start();
    await advance(5_000);
    expect(a.owned()).toHaveLength(4);
    expect(b.owned()).toHaveLength(4);
    expect(overlaps).toEqual([]);
  });

  it("awaits drain before releasing, renewing the draining leases meanwhile", async () => {
    const { bucket, records, advance, worker } = rig(8);
    const pending = new Map<number, () => void>();
    const drain = (partition: number) => new Promise<void>((resolve) => pending.set(partition, resolve));
    const a = worker("a", { drain });
    const b = worker("b");
    a.leases.start();
    await advance(2_000);
    b.leases.start();
    await advance(3_000);
    expect([...pending.keys()].sort()).toEqual([4, 5, 6, 7]); // a's block is 0–3; it gives up 4–7
    await advance(3 * TTL); // far past the TTL: still a's, renewed while draining
    expect(a.owned()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(b.owned()).toEqual([]);
    expect(bucket.peek("partition.5")).toBe("a");

    for (const resolve of pending.values()) resolve();
    await advance(2_000);
    expect(a.owned()).toEqual([0, 1, 2, 3]);
    expect(b.owned()).toEqual([4, 5, 6, 7]);
    expect(messages(records, "partition lease released").map((r) => [r.partition, r.reason])).toEqual([
      [7, "rebalance"], // least preferred first
      [6, "rebalance"],
      [5, "rebalance"],
      [4, "rebalance"],
    ]);
  });

  it("keeps a lease whose drain failed and tries again later", async () => {
    const { records, advance, worker } = rig(2);
    let failures = 1;
    const drain = async () => {
      if (failures-- > 0) throw new Error("still busy");
    };
    const a = worker("a", { drain });
    const b = worker("b");
    a.leases.start();
    await advance(2_000);
    b.leases.start();
    await advance(5_000);
    expect(messages(records, "partition drain failed")[0]).toMatchObject({ partition: 1, workerId: "a", reason: "drain_failed" });
    expect(a.owned()).toEqual([0]);
    expect(b.owned()).toEqual([1]);
  });

  it("stop drains and releases every lease, removes the presence, emits the empty set and completes", async () => {
    const { bucket, records, advance, worker } = rig();
    const drained: number[] = [];
    const a = worker("a", { drain: async (p) => void drained.push(p) });
    a.leases.start();
    await advance(1_500);
    const stopped = a.leases.stop();
    await advance(0);
    await stopped;
    expect(drained.sort()).toEqual([0, 1, 2, 3]);
    expect(a.owned()).toEqual([]);
    expect(a.completed()).toBe(true);
    expect(bucket.peek("worker.a")).toBeUndefined();
    expect([0, 1, 2, 3].map((p) => bucket.peek(`partition.${p}`))).toEqual([undefined, undefined, undefined, undefined]);
    expect(messages(records, "partition lease released").map((r) => r.reason)).toEqual(["shutdown", "shutdown", "shutdown", "shutdown"]);
  });

  it("stop before start resolves at once with the empty set", async () => {
    const { worker } = rig();
    const a = worker("a");
    await a.leases.stop();
    expect(a.owned()).toEqual([]);
    expect(a.completed()).toBe(true);
  });

  it("rejects a worker id that is not one key token, and bad counts", () => {
    const { bucket } = rig();
    const { logger } = captureLogs();
    const base = { kv: bucket.bucket, partitions: 4, ttlMs: TTL, logger };
    expect(() => new PartitionLeases({ ...base, workerId: "a.b" })).toThrow(RangeError);
    expect(() => new PartitionLeases({ ...base, workerId: "" })).toThrow(RangeError);
    expect(() => new PartitionLeases({ ...base, workerId: "a", partitions: 0 })).toThrow(RangeError);
    expect(() => new PartitionLeases({ ...base, workerId: "a", ttlMs: 0 })).toThrow(RangeError);
  });
});

describe("PartitionLeases share (virtual time, in-memory bucket)", () => {
  it("is undefined before start and after the joining tick, then the whole table for a lone worker once a tick read it", async () => {
    const { advance, worker } = rig(16);
    const a = worker("a");
    expect(a.leases.share).toBeUndefined();
    a.leases.start();
    await advance(0); // the joining tick announces the worker and reads no table
    expect(a.leases.share).toBeUndefined();
    await advance(999);
    expect(a.leases.share).toBeUndefined();
    await advance(1); // t = 1000: the first rebalance tick
    expect(a.leases.share).toBe(16);
    expect(a.owned()).toHaveLength(16);
  });

  it("counts another worker's presence in the bucket: half of 16 is 8", async () => {
    const { bucket, advance, worker } = rig(16);
    await bucket.put("worker.b", "b"); // a peer announced itself (it holds nothing yet)
    const a = worker("a");
    a.leases.start();
    await advance(1_000);
    expect(a.leases.share).toBe(8);
    expect(a.owned()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]); // its own block, nothing above its share
  });

  it("gives three workers over 16 partitions 6/5/5 by sorted id, whatever order they start in", async () => {
    const { advance, worker } = rig(16);
    const carol = worker("carol");
    const alice = worker("alice");
    const bob = worker("bob");
    for (const w of [carol, alice, bob]) w.leases.start();
    await advance(1_000);
    expect([alice.leases.share, bob.leases.share, carol.leases.share]).toEqual([6, 5, 5]);
    await advance(5_000);
    expect([alice.owned().length, bob.owned().length, carol.owned().length]).toEqual([6, 5, 5]);
  });

  it("follows the workers present: shrinks when a peer joins, grows back when it leaves", async () => {
    const { advance, worker } = rig(16);
    const a = worker("a");
    const b = worker("b");
    a.leases.start();
    await advance(2_000);
    expect(a.leases.share).toBe(16);
    b.leases.start();
    await advance(1_000); // a's next tick sees b's presence
    expect(a.leases.share).toBe(8);
    expect(b.leases.share).toBe(8);
    await advance(5_000);
    expect([a.owned().length, b.owned().length]).toEqual([8, 8]);
    const stopped = b.leases.stop();
    await advance(0);
    await stopped;
    await advance(1_000); // b removed its presence; a's next tick reads a table without it
    expect(a.leases.share).toBe(16);
  });

  it("keeps the last share read while the bucket stops answering (the owned set empties meanwhile)", async () => {
    const { bucket, advance, worker } = rig(16);
    const a = worker("a");
    a.leases.start();
    await advance(1_500);
    expect(a.leases.share).toBe(16);
    bucket.down = true;
    await advance(3_000);
    expect(a.owned()).toEqual([]);
    expect(a.leases.share).toBe(16);
  });
});
