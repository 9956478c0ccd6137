import { describe, expect, it } from "vitest";
import { concatMap, take } from "rxjs";
import type { ConsumeOptions, DurableMessage, PersistAck, PersistOptions } from "../../src/bus/bus.js";
import { BusClosedError, ConsumerConflictError, InvalidSubjectError } from "../../src/bus/errors.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";
import { testScheduler } from "../helpers/marbles.js";

/** Persists and returns the ack, which the in-process bus emits synchronously. */
function persist(bus: MemoryBus, subject: string, data: unknown, options?: PersistOptions): PersistAck {
  let ack: PersistAck | undefined;
  bus.persist(subject, data, options).subscribe((value) => (ack = value));
  if (ack === undefined) throw new Error("persist did not ack synchronously");
  return ack;
}

/** A consume() subscription that records every delivery; `auto` acks each one on arrival. */
function consumer(bus: MemoryBus, filter: string, options: ConsumeOptions, auto: "ack" | "hold" = "hold") {
  const deliveries: DurableMessage<string>[] = [];
  const errors: unknown[] = [];
  const subscription = bus.consume<string>(filter, options).subscribe({
    next: (message) => {
      deliveries.push(message);
      if (auto === "ack") message.ack();
    },
    error: (error: unknown) => errors.push(error),
  });
  /** What arrived, as `data#deliveryCount`. */
  const seen = () => deliveries.map((message) => `${message.data}#${message.deliveryCount}`);
  const find = (data: string) => {
    const message = deliveries.find((candidate) => candidate.data === data);
    if (message === undefined) throw new Error(`no delivery of ${data}`);
    return message;
  };
  return { deliveries, errors, subscription, seen, find };
}

describe("MemoryBus durable subjects", () => {
  it("acks persist with one bus-wide sequence starting at 1", () => {
    const bus = new MemoryBus();
    expect(persist(bus, "turn.0", "a")).toEqual({ seq: 1, duplicate: false });
    expect(persist(bus, "turn.1", "b")).toEqual({ seq: 2, duplicate: false });
    expect(persist(bus, "other", "c")).toEqual({ seq: 3, duplicate: false });
  });

  it("persists lazily: nothing is stored until the ack Observable is subscribed", () => {
    const bus = new MemoryBus();
    const lazy = bus.persist("turn.0", "lazy");
    expect(persist(bus, "turn.0", "a")).toEqual({ seq: 1, duplicate: false });
    const w = consumer(bus, "turn.0", { durable: "w" });
    expect(w.seen()).toEqual(["a#1"]);

    let ack: PersistAck | undefined;
    lazy.subscribe((value) => (ack = value));
    expect(ack).toEqual({ seq: 2, duplicate: false });
    expect(w.seen()).toEqual(["a#1", "lazy#1"]);
  });

  it("emits one ack and completes, and stores again on each subscription (cold, like defer)", () => {
    const bus = new MemoryBus();
    const ack$ = bus.persist("turn.0", "x");
    const events: string[] = [];
    const observer = { next: (ack: PersistAck) => events.push(`ack ${ack.seq}`), complete: () => events.push("complete") };
    ack$.subscribe(observer);
    ack$.subscribe(observer);
    expect(events).toEqual(["ack 1", "complete", "ack 2", "complete"]);
    expect(consumer(bus, "turn.0", { durable: "w" }).seen()).toEqual(["x#1", "x#1"]);
  });

  it("reports a closed bus on subscribe, not from persist() itself", async () => {
    const bus = new MemoryBus();
    const ack$ = bus.persist("turn.0", "x");
    await bus.close();
    const errors: unknown[] = [];
    expect(() => bus.persist("turn.0", "y")).not.toThrow();
    ack$.subscribe({ error: (error: unknown) => errors.push(error) });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(BusClosedError);
  });

  it("persistNow stores within the call exactly as persist does: one sequence, the duplicate window, the same errors", async () => {
    const bus = new MemoryBus();
    expect(bus.persistNow("turn.0", "x", { msgId: "m1" })).toEqual({ seq: 1, duplicate: false });
    const viaStream: PersistAck[] = [];
    bus.persist("turn.0", "y", { msgId: "m1" }).subscribe((ack) => viaStream.push(ack));
    expect(viaStream).toEqual([{ seq: 1, duplicate: true }]);
    expect(bus.persistNow("turn.0", "z", { msgId: "m2" })).toEqual({ seq: 2, duplicate: false });
    expect(() => bus.persistNow("bad subject", "x")).toThrow(InvalidSubjectError);
    await bus.close();
    expect(() => bus.persistNow("turn.0", "x")).toThrow(BusClosedError);
  });

  it("delivers the backlog persisted before the consumer started, oldest first, with its metadata", () => {
    const bus = new MemoryBus();
    persist(bus, "turn.0", "a", { msgId: "discord:1", headers: { "x-k": "v" } });
    persist(bus, "turn.0", "b");
    persist(bus, "turn.0", "c");

    const w = consumer(bus, "turn.0", { durable: "w" });

    const metadata = w.deliveries.map(({ subject, data, seq, deliveryCount, msgId, headers }) => ({
      subject,
      data,
      seq,
      deliveryCount,
      msgId,
      headers,
    }));
    expect(metadata).toEqual([
      { subject: "turn.0", data: "a", seq: 1, deliveryCount: 1, msgId: "discord:1", headers: { "x-k": "v" } },
      { subject: "turn.0", data: "b", seq: 2, deliveryCount: 1, msgId: undefined, headers: {} },
      { subject: "turn.0", data: "c", seq: 3, deliveryCount: 1, msgId: undefined, headers: {} },
    ]);
  });

  it("delivers a message persisted while the consumer runs, synchronously", () => {
    const bus = new MemoryBus();
    const w = consumer(bus, "turn.0", { durable: "w" });
    persist(bus, "turn.0", "a");
    expect(w.seen()).toEqual(["a#1"]);
    persist(bus, "turn.0", "b");
    expect(w.seen()).toEqual(["a#1", "b#1"]);
  });

  it("delivers only subjects under the filter", () => {
    const bus = new MemoryBus();
    for (const subject of ["turn.a", "turn.b", "turn.a.deep", "send.a", "turn.a"]) persist(bus, subject, subject);
    const exact = consumer(bus, "turn.a", { durable: "exact" });
    const wildcard = consumer(bus, "turn.*", { durable: "wildcard" });

    expect(exact.deliveries.map((message) => message.seq)).toEqual([1, 5]);
    expect(wildcard.deliveries.map((message) => message.seq)).toEqual([2]);
  });

  it("delivers oldest first across the subjects of a wildcard filter", () => {
    const bus = new MemoryBus();
    for (const subject of ["turn.b", "turn.a", "turn.b", "turn.a", "turn.c"]) persist(bus, subject, subject);
    const wildcard = consumer(bus, "turn.*", { durable: "wildcard" });
    expect(wildcard.deliveries.map((message) => `${message.seq}:${message.subject}`)).toEqual([
      "1:turn.b",
      "2:turn.a",
      "3:turn.b",
      "4:turn.a",
      "5:turn.c",
    ]);
  });

  it("removes an acked message for good: neither the same nor another durable sees it again", () => {
    const bus = new MemoryBus();
    persist(bus, "turn.0", "a");
    persist(bus, "turn.0", "b");
    const first = consumer(bus, "turn.0", { durable: "w" });
    first.find("a").ack();
    first.find("a").ack(); // idempotent
    first.subscription.unsubscribe();

    const again = consumer(bus, "turn.0", { durable: "w" });
    const other = consumer(bus, "turn.0", { durable: "other" });

    expect(again.seen()).toEqual(["b#2"]);
    expect(other.seen()).toEqual([]);
  });

  it("redelivers a naked message with deliveryCount 2 before newer messages", () => {
    const bus = new MemoryBus();
    for (const data of ["a", "b", "c"]) persist(bus, "turn.0", data);
    const w = consumer(bus, "turn.0", { durable: "w", maxAckPending: 2 });
    expect(w.seen()).toEqual(["a#1", "b#1"]);

    w.find("a").nak();

    expect(w.seen()).toEqual(["a#1", "b#1", "a#2"]);
    w.deliveries[2]?.ack();
    expect(w.seen()).toEqual(["a#1", "b#1", "a#2", "c#1"]);
  });

  it("ignores a second nak, a nak after ack and a nak from an older delivery", () => {
    const bus = new MemoryBus();
    persist(bus, "turn.0", "a");
    persist(bus, "turn.0", "b");
    const w = consumer(bus, "turn.0", { durable: "w" });
    const firstA = w.find("a");
    firstA.nak();
    firstA.nak(); // repeated
    expect(w.seen()).toEqual(["a#1", "b#1", "a#2"]);

    firstA.nak(); // stale: a#2 is the current delivery
    w.find("b").ack();
    w.find("b").nak(); // after ack
    expect(w.seen()).toEqual(["a#1", "b#1", "a#2"]);
  });

  it("returns what an unsubscribed subscription held unacked to the next subscriber of the durable", () => {
    const bus = new MemoryBus();
    for (const data of ["a", "b", "c"]) persist(bus, "turn.0", data);
    const first = consumer(bus, "turn.0", { durable: "w" });
    first.find("a").ack();
    first.subscription.unsubscribe();
    persist(bus, "turn.0", "d");

    const next = consumer(bus, "turn.0", { durable: "w" });

    expect(next.seen()).toEqual(["b#2", "c#2", "d#1"]);
  });

  it("hands what an unsubscribed subscription held to a remaining subscriber at once", () => {
    const bus = new MemoryBus();
    const first = consumer(bus, "turn.0", { durable: "w", maxAckPending: 2 });
    const second = consumer(bus, "turn.0", { durable: "w", maxAckPending: 2 });
    for (const data of ["a", "b", "c"]) persist(bus, "turn.0", data);
    expect(first.seen()).toEqual(["a#1"]);
    expect(second.seen()).toEqual(["b#1"]);

    first.subscription.unsubscribe();

    expect(second.seen()).toEqual(["b#1", "a#2"]);
    second.find("b").ack();
    expect(second.seen()).toEqual(["b#1", "a#2", "c#1"]);
  });

  it("counts an ack from a subscription that already ended, as JetStream acks by sequence", () => {
    const bus = new MemoryBus();
    persist(bus, "turn.0", "a");
    persist(bus, "turn.0", "b");
    const first = consumer(bus, "turn.0", { durable: "w" });
    first.subscription.unsubscribe();
    first.find("a").ack();

    const next = consumer(bus, "turn.0", { durable: "w" });

    expect(next.seen()).toEqual(["b#2"]);
  });

  it("lets take(1) pick one message and ack it after the subscription ended", () => {
    const bus = new MemoryBus();
    for (const data of ["a", "b"]) persist(bus, "turn.0", data);
    const picked: DurableMessage<string>[] = [];
    bus
      .consume<string>("turn.0", { durable: "w" })
      .pipe(take(1))
      .subscribe((message) => picked.push(message));
    expect(picked.map((message) => message.data)).toEqual(["a"]);
    picked[0]?.ack();

    const next = consumer(bus, "turn.0", { durable: "w" });

    // b was never handed to the take(1) subscriber, so this is its first delivery.
    expect(next.seen()).toEqual(["b#1"]);
  });

  it("with maxAckPending 1 delivers one message at a time, the next after each ack", () => {
    const bus = new MemoryBus();
    for (const data of ["a", "b", "c"]) persist(bus, "turn.0", data);
    const w = consumer(bus, "turn.0", { durable: "w", maxAckPending: 1 });
    expect(w.seen()).toEqual(["a#1"]);
    persist(bus, "turn.0", "d");
    expect(w.seen()).toEqual(["a#1"]);

    w.find("a").ack();
    expect(w.seen()).toEqual(["a#1", "b#1"]);
    w.find("b").ack();
    w.find("c").ack();
    expect(w.seen()).toEqual(["a#1", "b#1", "c#1", "d#1"]);
  });

  it("shares one durable between two subscribers round-robin, without duplicates", () => {
    const bus = new MemoryBus();
    const a = consumer(bus, "turn.0", { durable: "w" }, "ack");
    const b = consumer(bus, "turn.0", { durable: "w" }, "ack");
    for (let n = 1; n <= 6; n += 1) persist(bus, "turn.0", `m${n}`);

    expect(a.seen()).toEqual(["m1#1", "m3#1", "m5#1"]);
    expect(b.seen()).toEqual(["m2#1", "m4#1", "m6#1"]);
  });

  it("keeps maxAckPending per durable, shared by its subscribers", () => {
    const bus = new MemoryBus();
    const a = consumer(bus, "turn.0", { durable: "w", maxAckPending: 2 });
    const b = consumer(bus, "turn.0", { durable: "w", maxAckPending: 2 });
    for (const data of ["a", "b", "c"]) persist(bus, "turn.0", data);
    expect([...a.seen(), ...b.seen()]).toEqual(["a#1", "b#1"]);
  });

  it("gives each message to exactly one of two durables with overlapping filters: the first to receive it", () => {
    const bus = new MemoryBus();
    const narrow = consumer(bus, "turn.*", { durable: "narrow", maxAckPending: 1 });
    const wide = consumer(bus, "turn.>", { durable: "wide", maxAckPending: 1 });
    for (const data of ["a", "b", "c"]) persist(bus, "turn.0", data);
    // narrow was created first and is offered a first; full, it leaves b to wide; c waits.
    expect(narrow.seen()).toEqual(["a#1"]);
    expect(wide.seen()).toEqual(["b#1"]);

    wide.find("b").nak(); // b now belongs to wide
    narrow.find("a").ack();

    expect(narrow.seen()).toEqual(["a#1", "c#1"]);
    expect(wide.seen()).toEqual(["b#1", "b#2"]);
  });

  it("keeps a 10,000-message ack-in-callback loop flat and in order", () => {
    const bus = new MemoryBus();
    const count = 10_000;
    for (let n = 1; n <= count; n += 1) persist(bus, "turn.0", n);
    const seqs: number[] = [];
    bus.consume("turn.0", { durable: "w", maxAckPending: 1 }).subscribe((message) => {
      seqs.push(message.seq);
      message.ack(); // frees the only slot from inside the delivery
    });
    expect(seqs).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });

  it("refuses a repeated msgId inside the window and reports the original sequence", () => {
    const bus = new MemoryBus();
    expect(persist(bus, "turn.0", "a", { msgId: "discord:e1" })).toEqual({ seq: 1, duplicate: false });
    expect(persist(bus, "turn.0", "b", { msgId: "discord:e2" })).toEqual({ seq: 2, duplicate: false });
    expect(persist(bus, "turn.0", "a again", { msgId: "discord:e1" })).toEqual({ seq: 1, duplicate: true });
    expect(persist(bus, "turn.0", "c")).toEqual({ seq: 3, duplicate: false });

    const w = consumer(bus, "turn.0", { durable: "w" }, "ack");
    expect(w.seen()).toEqual(["a#1", "b#1", "c#1"]);
    // Acked and gone, the msgId still counts as seen until the window passes.
    expect(persist(bus, "turn.0", "a late", { msgId: "discord:e1" })).toEqual({ seq: 1, duplicate: true });
  });

  it("stores a msgId again once the duplicate window has passed (virtual time)", () => {
    const scheduler = testScheduler();
    const stored: string[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const bus = new MemoryBus({ scheduler, duplicateWindowMs: 1000 });
      bus.consume<string>("turn.0", { durable: "w" }).subscribe((message) => stored.push(`${message.data}@${message.seq}`));
      const triggers = cold("a 998ms bc|", { a: "first", b: "retry", c: "after window" });

      expectObservable(triggers.pipe(concatMap((data) => bus.persist("turn.0", data, { msgId: "discord:e1" })))).toBe(
        "a 998ms bc|",
        { a: { seq: 1, duplicate: false }, b: { seq: 1, duplicate: true }, c: { seq: 2, duplicate: false } },
      );
    });
    expect(stored).toEqual(["first@1", "after window@2"]);
  });

  it("errors a subscription whose filter or maxAckPending differs from the durable's", () => {
    const bus = new MemoryBus();
    consumer(bus, "turn.0", { durable: "w", maxAckPending: 5 });
    const otherFilter = consumer(bus, "turn.1", { durable: "w", maxAckPending: 5 });
    const otherLimit = consumer(bus, "turn.0", { durable: "w", maxAckPending: 6 });
    const badLimit = consumer(bus, "turn.0", { durable: "fresh", maxAckPending: 0 });

    expect(otherFilter.errors[0]).toBeInstanceOf(ConsumerConflictError);
    expect(otherLimit.errors[0]).toBeInstanceOf(ConsumerConflictError);
    expect(badLimit.errors[0]).toBeInstanceOf(RangeError);
  });

  it("errors persist on a wildcard subject and consume on an invalid filter", () => {
    const bus = new MemoryBus();
    const errors: unknown[] = [];
    bus.persist("turn.*", "a").subscribe({ error: (error: unknown) => errors.push(error) });
    bus.consume("turn.>.x", { durable: "w" }).subscribe({ error: (error: unknown) => errors.push(error) });
    expect(errors).toHaveLength(2);
    for (const error of errors) expect(error).toBeInstanceOf(InvalidSubjectError);
  });

  it("completes consumers on close and delivers nothing afterwards, even to an ack", async () => {
    const bus = new MemoryBus();
    persist(bus, "turn.0", "a");
    persist(bus, "turn.0", "b");
    let completed = false;
    const deliveries: DurableMessage<string>[] = [];
    bus.consume<string>("turn.0", { durable: "w", maxAckPending: 1 }).subscribe({
      next: (message) => deliveries.push(message),
      complete: () => (completed = true),
    });

    await bus.close();
    deliveries[0]?.ack();

    expect(completed).toBe(true);
    expect(deliveries.map((message) => message.data)).toEqual(["a"]);
  });
});
