import { describe, expect, it } from "vitest";
import type { Observable } from "rxjs";
import type { Bus, BusMessage } from "../../src/bus/bus.js";
import { BusClosedError, InvalidSubjectError } from "../../src/bus/errors.js";
import { MemoryBus } from "../../src/bus/memoryBus.js";

/** Subscribes and records what arrives, how the subscription ended, and any error. */
function record<T, M extends { readonly data: T } = BusMessage<T>>(source: Observable<M>) {
  const seen: T[] = [];
  const messages: M[] = [];
  const outcome: { completed: boolean; error: unknown } = { completed: false, error: undefined };
  const subscription = source.subscribe({
    next: (message) => {
      seen.push(message.data);
      messages.push(message);
    },
    complete: () => (outcome.completed = true),
    error: (error: unknown) => (outcome.error = error),
  });
  return { seen, messages, outcome, subscription };
}

describe("MemoryBus publish/subscribe", () => {
  it("delivers each message to every plain subscriber, the same object without copying", () => {
    const bus = new MemoryBus();
    const a = record<{ n: number }>(bus.subscribe("turn.in"));
    const b = record<{ n: number }>(bus.subscribe("turn.in"));
    const payload = { n: 1 };

    bus.publish("turn.in", payload, { headers: { "x-trace": "t1" } });

    expect(a.seen).toEqual([{ n: 1 }]);
    expect(b.seen).toEqual([{ n: 1 }]);
    expect(a.messages[0]?.data).toBe(payload);
    expect(b.messages[0]?.data).toBe(payload);
    expect(a.messages[0]?.subject).toBe("turn.in");
    expect(a.messages[0]?.headers).toEqual({ "x-trace": "t1" });
  });

  it("gives messages published without headers an empty header record", () => {
    const bus = new MemoryBus();
    const a = record(bus.subscribe("x"));
    bus.publish("x", 1);
    expect(a.messages[0]?.headers).toEqual({});
  });

  it("delivers to wildcard subscriptions by token", () => {
    const bus = new MemoryBus();
    const oneToken = record<string>(bus.subscribe("turn.*"));
    const trailing = record<string>(bus.subscribe("turn.>"));
    const everything = record<string>(bus.subscribe(">"));
    const middle = record<string>(bus.subscribe("turn.*.in"));

    for (const subject of ["turn", "turn.0", "turn.0.in", "turn.0.out", "send.discord"]) bus.publish(subject, subject);

    expect(oneToken.seen).toEqual(["turn.0"]);
    expect(trailing.seen).toEqual(["turn.0", "turn.0.in", "turn.0.out"]);
    expect(everything.seen).toEqual(["turn", "turn.0", "turn.0.in", "turn.0.out", "send.discord"]);
    expect(middle.seen).toEqual(["turn.0.in"]);
  });

  it("keeps publish order: 1,000 messages arrive in order", () => {
    const bus = new MemoryBus();
    const a = record<number>(bus.subscribe("n"));
    const expected = Array.from({ length: 1000 }, (_, i) => i);
    for (const n of expected) bus.publish("n", n);
    expect(a.seen).toEqual(expected);
  });

  it("hands each message to exactly one member of a queue group, round-robin, and to every plain subscriber", () => {
    const bus = new MemoryBus();
    const members = [1, 2, 3].map(() => record<number>(bus.subscribe("send.discord", { queue: "edges" })));
    const plain = record<number>(bus.subscribe("send.discord"));

    for (let n = 1; n <= 9; n += 1) bus.publish("send.discord", n);

    expect(members.map((member) => member.seen)).toEqual([
      [1, 4, 7],
      [2, 5, 8],
      [3, 6, 9],
    ]);
    expect(plain.seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("treats members with different patterns but one queue name as one group", () => {
    const bus = new MemoryBus();
    const exact = record<number>(bus.subscribe("send.discord", { queue: "edges" }));
    const wildcard = record<number>(bus.subscribe("send.*", { queue: "edges" }));

    for (let n = 1; n <= 4; n += 1) bus.publish("send.discord", n);

    expect(exact.seen).toEqual([1, 3]);
    expect(wildcard.seen).toEqual([2, 4]);
  });

  it("delivers each message once to every distinct queue group", () => {
    const bus = new MemoryBus();
    const left = [record<number>(bus.subscribe("e", { queue: "left" })), record<number>(bus.subscribe("e", { queue: "left" }))];
    const right = record<number>(bus.subscribe("e", { queue: "right" }));

    for (let n = 1; n <= 4; n += 1) bus.publish("e", n);

    expect(left.map((member) => member.seen)).toEqual([
      [1, 3],
      [2, 4],
    ]);
    expect(right.seen).toEqual([1, 2, 3, 4]);
  });

  it("moves a queue group's turn on to the remaining members after one unsubscribes", () => {
    const bus = new MemoryBus();
    const a = record<number>(bus.subscribe("e", { queue: "q" }));
    const b = record<number>(bus.subscribe("e", { queue: "q" }));
    bus.publish("e", 1);
    a.subscription.unsubscribe();
    bus.publish("e", 2);
    bus.publish("e", 3);
    expect(a.seen).toEqual([1]);
    expect(b.seen).toEqual([2, 3]);
  });

  it("passes a queue group's message on when the member whose turn it is unsubscribed during that delivery", () => {
    const bus = new MemoryBus();
    let a: ReturnType<typeof record<number>> | undefined;
    bus.subscribe<number>("e").subscribe(() => a?.subscription.unsubscribe());
    a = record<number>(bus.subscribe("e", { queue: "q" }));
    const b = record<number>(bus.subscribe("e", { queue: "q" }));

    bus.publish("e", 1); // a's turn, but the plain subscriber ends a first

    expect(a.seen).toEqual([]);
    expect(b.seen).toEqual([1]);
  });

  it("stops delivering after unsubscribe", () => {
    const bus = new MemoryBus();
    const a = record<number>(bus.subscribe("n"));
    const b = record<number>(bus.subscribe("n"));
    bus.publish("n", 1);
    a.subscription.unsubscribe();
    bus.publish("n", 2);
    expect(a.seen).toEqual([1]);
    expect(b.seen).toEqual([1, 2]);
    expect(a.outcome.completed).toBe(false);
  });

  it("drops a publish nobody listens to", () => {
    const bus = new MemoryBus();
    expect(() => bus.publish("nobody.home", 1)).not.toThrow();
  });

  it("answers false to respond() on a published message", () => {
    const bus = new MemoryBus();
    const a = record(bus.subscribe("n"));
    bus.publish("n", 1);
    expect(a.messages[0]?.respond("reply")).toBe(false);
  });

  it("refuses invalid subjects: publish throws, subscribe errors", () => {
    const bus = new MemoryBus();
    expect(() => bus.publish("turn.*", 1)).toThrow(InvalidSubjectError);
    expect(() => bus.publish("turn..0", 1)).toThrow(InvalidSubjectError);
    const a = record(bus.subscribe("turn.>.x"));
    expect(a.outcome.error).toBeInstanceOf(InvalidSubjectError);
  });

  it("checks a subject on every call until it was found valid (the check is cached, a refusal is not)", () => {
    const bus = new MemoryBus();
    for (let i = 0; i < 2; i++) {
      expect(() => bus.publish("turn..0", 1)).toThrow(InvalidSubjectError);
      expect(persistError(bus, "turn.*")).toBeInstanceOf(InvalidSubjectError);
      expect(persistError(bus, "turn.0")).toBeUndefined();
    }
    // Valid for publish is not valid as a pattern elsewhere: a wildcard stays refused after a valid subject.
    expect(() => bus.publish("turn.>", 1)).toThrow(InvalidSubjectError);
  });
});

/** The error a persist fails with at once, if any. */
function persistError(bus: MemoryBus, subject: string): unknown {
  let error: unknown;
  bus.persist(subject, 1).subscribe({ error: (err: unknown) => (error = err) });
  return error;
}

describe("MemoryBus re-entrancy", () => {
  it("delivers a message published from inside a subscriber after the current one, to every subscriber", () => {
    const bus = new MemoryBus();
    const log: string[] = [];
    bus.subscribe<string>("a").subscribe((message) => {
      log.push(`first:${message.data}`);
      if (message.data === "a1") bus.publish("a", "a2");
    });
    bus.subscribe<string>("a").subscribe((message) => log.push(`second:${message.data}`));

    bus.publish("a", "a1");

    // Without a trampoline the second subscriber would see a2 before a1.
    expect(log).toEqual(["first:a1", "second:a1", "first:a2", "second:a2"]);
  });

  it("delivers the whole re-entrant cascade before publish() returns", () => {
    const bus = new MemoryBus();
    const seen: number[] = [];
    bus.subscribe<number>("n").subscribe((message) => {
      seen.push(message.data);
      if (message.data < 3) bus.publish("n", message.data + 1);
    });
    bus.publish("n", 1);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("runs a 100,000-deep publish chain without growing the stack, in order", () => {
    const bus = new MemoryBus();
    const depth = 100_000;
    let last = 0;
    let ordered = true;
    bus.subscribe<number>("chain").subscribe((message) => {
      if (message.data !== last + 1) ordered = false;
      last = message.data;
      if (message.data < depth) bus.publish("chain", message.data + 1);
    });
    bus.publish("chain", 1);
    expect(last).toBe(depth);
    expect(ordered).toBe(true);
  });

  it("does not deliver a queued message to a subscriber that unsubscribed meanwhile", () => {
    const bus = new MemoryBus();
    const late = record<number>(bus.subscribe("n"));
    bus.subscribe<number>("n").subscribe((message) => {
      if (message.data === 1) {
        bus.publish("n", 2);
        late.subscription.unsubscribe();
      }
    });
    // `late` subscribed first, so it saw 1 before the second subscriber published 2 and ended it.
    bus.publish("n", 1);
    expect(late.seen).toEqual([1]);
  });
});

describe("MemoryBus close", () => {
  it("completes every open subscription", async () => {
    const bus = new MemoryBus();
    const plain = record(bus.subscribe("a"));
    const grouped = record(bus.subscribe("b", { queue: "q" }));
    const durable = record(bus.consume("c", { durable: "d" }));

    await bus.close();

    expect(plain.outcome).toEqual({ completed: true, error: undefined });
    expect(grouped.outcome).toEqual({ completed: true, error: undefined });
    expect(durable.outcome).toEqual({ completed: true, error: undefined });
  });

  it("refuses all further use with BusClosedError: publish throws, Observables error", async () => {
    const bus = new MemoryBus();
    await bus.close();

    expect(() => bus.publish("a", 1)).toThrow(BusClosedError);
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    bus.subscribe("a").subscribe({ error: onError });
    bus.request("a", 1, { timeoutMs: 100 }).subscribe({ error: onError });
    bus.persist("a", 1).subscribe({ error: onError });
    bus.consume("a", { durable: "d" }).subscribe({ error: onError });

    expect(errors).toHaveLength(4);
    for (const error of errors) expect(error).toBeInstanceOf(BusClosedError);
  });

  it("fails a request still waiting for its reply with BusClosedError", async () => {
    const bus = new MemoryBus();
    bus.subscribe("svc").subscribe(); // listens, never answers
    const errors: unknown[] = [];
    bus.request("svc", 1, { timeoutMs: 60_000 }).subscribe({ error: (error: unknown) => errors.push(error) });

    await bus.close();

    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(BusClosedError);
  });

  it("can be closed from inside a subscriber, dropping messages still queued", async () => {
    const bus = new MemoryBus();
    const other = record<number>(bus.subscribe("n"));
    let closing: Promise<void> | undefined;
    bus.subscribe<number>("n").subscribe((message) => {
      bus.publish("n", message.data + 1);
      closing = bus.close();
    });
    bus.publish("n", 1);
    await closing;
    expect(other.seen).toEqual([1]);
    expect(other.outcome.completed).toBe(true);
  });

  it("resolves a second close()", async () => {
    const bus = new MemoryBus();
    await bus.close();
    await expect(bus.close()).resolves.toBeUndefined();
  });
});

describe("MemoryBus connected", () => {
  it("has no connected(): the embedded bus has no server to lose, so readiness counts it always connected", () => {
    const bus: Bus = new MemoryBus();
    expect(bus.connected).toBeUndefined();
    expect(bus.connected?.() ?? true).toBe(true);
  });
});
