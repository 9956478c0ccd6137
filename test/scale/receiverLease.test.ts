import { VirtualTimeScheduler } from "rxjs";
import { describe, expect, it } from "vitest";
import type { LeaseBucket } from "../../src/scale/leaseBucket.js";
import { receiverKey } from "../../src/scale/leaseBucket.js";
import { ReceiverLease, type LeasedReceiver } from "../../src/scale/receiverLease.js";
import { captureLogs, type LogRecord } from "../helpers/logCapture.js";
import { FakeLeaseBucket } from "./fakeLeaseBucket.js";

// The receiver lease in virtual time over an in-memory bucket: exact deadlines, no sockets. TTL 4 s,
// so a tick every 1 s and the local deadline 2 s after a renew was sent. The real server and real
// processes: test/e2e/telegramScaleOut.test.ts.
const TTL = 4_000;
const KEY = "receiver.telegram.123456";

/** A receiver that notes when it started and stopped, on the virtual clock. */
class Receiver implements LeasedReceiver {
  readonly key = "telegram.123456";
  readonly switches: string[] = [];
  receiving = false;
  constructor(
    readonly name: string,
    readonly now: () => number,
    readonly sink: string[],
  ) {}
  startReceiving(): void {
    this.receiving = true;
    this.switches.push(`start@${this.now()}`);
    this.sink.push(`${this.name} start@${this.now()}`);
  }
  async stopReceiving(withinMs: number): Promise<void> {
    this.receiving = false;
    this.switches.push(`stop@${this.now()} within ${withinMs}`);
    this.sink.push(`${this.name} stop@${this.now()}`);
  }
}

/** One holder's view of the bucket, cut off on its own (that holder lost NATS) with `down`. */
function view(bucket: FakeLeaseBucket): { kv: LeaseBucket; down: boolean } {
  const state = { down: false, kv: undefined as unknown as LeaseBucket };
  const hang = () => new Promise<never>(() => undefined);
  state.kv = {
    create: (...args) => (state.down ? hang() : bucket.bucket.create(...args)),
    update: (...args) => (state.down ? hang() : bucket.bucket.update(...args)),
    put: (...args) => (state.down ? hang() : bucket.bucket.put(...args)),
    delete: (...args) => (state.down ? hang() : bucket.bucket.delete(...args)),
    get: (...args) => (state.down ? hang() : bucket.bucket.get(...args)),
    keys: (...args) => (state.down ? hang() : bucket.bucket.keys(...args)),
  };
  return state;
}

function rig() {
  const scheduler = new VirtualTimeScheduler();
  const bucket = new FakeLeaseBucket(() => scheduler.now(), TTL);
  const { logger, records } = captureLogs("debug");
  const timeline: string[] = [];
  const overlaps: number[] = [];
  const receivers: Receiver[] = [];
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
      if (receivers.filter((r) => r.receiving).length > 1) overlaps.push(scheduler.frame);
    }
  };
  const holder = (name: string) => {
    const kv = view(bucket);
    const receiver = new Receiver(name, () => scheduler.now(), timeline);
    receivers.push(receiver);
    const lease = new ReceiverLease({ kv: kv.kv, holder: name, receiver, ttlMs: TTL, logger, scheduler });
    return { lease, receiver, kv };
  };
  return { scheduler, bucket, records, timeline, overlaps, advance, holder };
}

const messages = (records: LogRecord[], msg: string) => records.filter((r) => r.msg === msg);

describe("ReceiverLease (virtual time, in-memory bucket)", () => {
  it("a lone holder acquires on its first tick, receives, and keeps the lease by renewing every quarter of the TTL", async () => {
    const { bucket, records, advance, holder } = rig();
    const a = holder("a");
    a.lease.start();
    await advance(0);
    expect(bucket.peek(KEY)).toBe("a");
    expect(a.receiver.switches).toEqual(["start@0"]);
    expect(a.lease.holding).toBe(true);
    expect(messages(records, "receiver lease acquired")).toEqual([expect.objectContaining({ receiver: "telegram.123456", holder: "a" })]);

    await advance(20_000);
    expect(a.receiver.switches).toEqual(["start@0"]);
    expect(messages(records, "receiver lease lost")).toEqual([]);
  });

  it("a second holder stands by, logged once with who holds the lease, and never receives while the first does", async () => {
    const { records, overlaps, advance, holder } = rig();
    const a = holder("a");
    const b = holder("b");
    a.lease.start();
    await advance(0);
    b.lease.start();
    await advance(10_000);
    expect(b.receiver.switches).toEqual([]);
    expect(messages(records, "receiver standing by")).toEqual([expect.objectContaining({ holder: "b", heldBy: "a", reason: "held_elsewhere", receiver: "telegram.123456" })]);
    expect(overlaps).toEqual([]);
  });

  it("a holder cut off from NATS stops at half the TTL after its last renew; the other takes over once the bucket expired the lease, never overlapping", async () => {
    const { records, timeline, overlaps, advance, holder } = rig();
    const a = holder("a");
    const b = holder("b");
    a.lease.start();
    await advance(0);
    b.lease.start();
    await advance(1_500); // a renewed at 1000
    a.kv.down = true;
    await advance(499); // t = 1999: the renew sent at 2000 will hang
    await advance(1_001); // t = 3000 = 1000 + TTL/2
    expect(a.receiver.switches).toEqual(["start@0", `stop@3000 within ${TTL / 4}`]);
    expect(messages(records, "receiver lease lost")).toEqual([expect.objectContaining({ holder: "a", reason: "renew_overdue" })]);
    expect(b.receiver.switches).toEqual([]);

    await advance(3_000); // the entry written at 1000 expires at 5000; b's tick at 5000 creates it
    expect(b.receiver.switches).toEqual(["start@5000"]);
    expect(timeline).toEqual(["a start@0", "a stop@3000", "b start@5000"]);
    expect(overlaps).toEqual([]);

    a.kv.down = false; // back: a stands by behind b
    await advance(2_000);
    expect(a.receiver.switches).toHaveLength(2);
    expect(messages(records, "receiver standing by").map((r) => [r.holder, r.heldBy])).toEqual([
      ["b", "a"],
      ["a", "b"],
    ]);
  });

  it("a stand-by tries again just after the dead holder's last write expires, not a quarter TTL later at its next tick", async () => {
    const { timeline, overlaps, advance, holder } = rig();
    const a = holder("a");
    const b = holder("b");
    a.lease.start();
    await advance(500);
    b.lease.start(); // b ticks at 500, 1500, 2500…: between a's renews
    await advance(1_000); // t = 1500: a renewed at 1000
    a.kv.down = true; // a is as good as dead: its key was last written at 1000
    await advance(5_000);
    // Expired at 5000; b's ticks came at 4500 (too early) and would again at 5500: the aimed try at 5050 takes it.
    expect(timeline).toEqual(["a start@0", "a stop@3000", "b start@5050"]);
    expect(overlaps).toEqual([]);
  });

  it("a renew that conflicts stops receiving at once, with nothing more said to the platform", async () => {
    const { bucket, records, advance, holder } = rig();
    const a = holder("a");
    a.lease.start();
    await advance(500);
    await bucket.put(KEY, "intruder"); // another writer: the revision moved on
    await advance(1_000);
    expect(a.receiver.switches).toEqual(["start@0", "stop@1000 within 0"]);
    expect(messages(records, "receiver lease lost")).toEqual([expect.objectContaining({ reason: "conflict" })]);
    expect(messages(records, "receiver standing by")).toEqual([expect.objectContaining({ holder: "a", heldBy: "intruder" })]);
  });

  it("a stop stops receiving while the lease still holds, then releases it so the other holder takes over on its next tick", async () => {
    const { bucket, records, timeline, overlaps, advance, holder } = rig();
    const a = holder("a");
    const b = holder("b");
    a.lease.start();
    await advance(0);
    b.lease.start();
    await advance(2_500);
    const stopped = a.lease.stop();
    await advance(10);
    await stopped;
    expect(bucket.peek(KEY)).toBeUndefined();
    expect(a.receiver.switches).toEqual(["start@0", `stop@2500 within ${TTL / 4}`]);
    expect(messages(records, "receiver lease released")).toEqual([expect.objectContaining({ holder: "a", reason: "shutdown" })]);
    await advance(1_000);
    expect(timeline).toEqual(["a start@0", "a stop@2500", "b start@3000"]);
    expect(overlaps).toEqual([]);
  });

  it("a stop while cut off from NATS stops receiving at once and resolves once the release timed out", async () => {
    const { advance, holder } = rig();
    const a = holder("a");
    a.lease.start();
    await advance(500);
    a.kv.down = true;
    const stopped = a.lease.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await advance(3_000);
    expect(done).toBe(true);
    // Stopped at once, with a quarter TTL for a last word: the lease was renewed half a TTL ago at most.
    expect(a.receiver.switches).toEqual(["start@0", `stop@500 within ${TTL / 4}`]);
  });

  it("frees a lease the bucket shows as its own but it does not hold (a create answered too late), then takes it", async () => {
    const { bucket, records, advance, holder } = rig();
    await bucket.put(KEY, "a");
    const a = holder("a");
    a.lease.start();
    await advance(0);
    expect(a.receiver.switches).toEqual([]);
    expect(messages(records, "receiver lease released")).toEqual([expect.objectContaining({ holder: "a", reason: "stale" })]);
    await advance(1_000);
    expect(a.receiver.switches).toEqual(["start@1000"]);
  });

  it("stop before start resolves at once; a holder id or receiver that is not a key token is refused", async () => {
    const { holder } = rig();
    await holder("a").lease.stop();
    expect(() => receiverKey("telegram.123:secret")).toThrow(RangeError);
    expect(() => receiverKey(".telegram")).toThrow(RangeError);
    expect(receiverKey("telegram.123456")).toBe(KEY);
    expect(() => holder("a.b")).toThrow(RangeError);
  });
});
