import { firstValueFrom, lastValueFrom, toArray, type Observable, type Subscription } from "rxjs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Bus, BusMessage, DurableMessage, PersistAck, PersistOptions } from "../../src/bus/bus.js";
import { BusClosedError, BusTimeoutError, ConsumerConflictError, InvalidSubjectError, NoRespondersError } from "../../src/bus/errors.js";
import { subjects, type Subjects } from "../../src/wire/index.js";

/** Makes a fresh bus whose durable subjects are `subjects(prefix).turn(…)`. */
export type BusFactory = (prefix: string) => Promise<Bus>;

/** What an Observable has emitted so far. */
export interface Recorder<T> {
  readonly values: T[];
  readonly errors: unknown[];
  readonly completed: () => boolean;
  readonly subscription: Subscription;
}

export function record<T>(source: Observable<T>): Recorder<T> {
  const values: T[] = [];
  const errors: unknown[] = [];
  let completed = false;
  const subscription = source.subscribe({
    next: (value) => values.push(value),
    error: (error: unknown) => errors.push(error),
    complete: () => (completed = true),
  });
  return { values, errors, completed: () => completed, subscription };
}

/** Polls `condition` until it holds; a real bus delivers asynchronously, the in-process one at once. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `waitFor` for a condition that needs I/O to check. */
export async function waitUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A quiet spell, only where a test asserts that something does NOT happen and no marker can show it. */
export function quiet(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function persist(bus: Bus, subject: string, data: unknown, options?: PersistOptions): Promise<PersistAck> {
  return firstValueFrom(bus.persist(subject, data, options));
}

/** `data#deliveryCount` of every delivery so far. */
export function seen(recorder: Recorder<DurableMessage<unknown>>): string[] {
  return recorder.values.map((message) => `${String(message.data)}#${message.deliveryCount}`);
}

let suite = 0;

/**
 * The behaviour every `Bus` shares, as asynchronous cases with real time: the in-process bus must
 * pass them as the NATS bus does, so pipeline code never depends on which bus it runs on.
 */
export function describeBusContract(name: string, makeBus: BusFactory): void {
  describe(`Bus contract: ${name}`, () => {
    let bus: Bus;
    let prefix: string;
    let s: Subjects;
    let testNumber = 0;
    suite += 1;
    const suiteId = `${suite}${Math.random().toString(36).slice(2, 6)}`;

    beforeEach(async () => {
      testNumber += 1;
      prefix = `contract${suiteId}t${testNumber}`;
      s = subjects(prefix);
      bus = await makeBus(prefix);
    });
    afterEach(async () => {
      await bus.close();
    });

    describe("publish / subscribe", () => {
      it("delivers to every matching subscription, with `*` and `>`, data and headers", async () => {
        const room = record(bus.subscribe<{ text: string }>(`${prefix}.room.*`));
        const all = record(bus.subscribe<{ text: string }>(`${prefix}.>`));
        const other = record(bus.subscribe<string>(`${prefix}.other`));
        bus.publish(`${prefix}.room.a`, { text: "hi" }, { headers: { "x-trace": "t1" } });
        bus.publish(`${prefix}.room.a.deep`, { text: "deep" });
        bus.publish(`${prefix}.other`, "marker");
        await waitFor(() => all.values.length === 3 && other.values.length === 1, "three messages on >");

        expect(room.values.map((m) => [m.subject, m.data, m.headers])).toEqual([[`${prefix}.room.a`, { text: "hi" }, { "x-trace": "t1" }]]);
        expect(all.values.map((m) => m.subject)).toEqual([`${prefix}.room.a`, `${prefix}.room.a.deep`, `${prefix}.other`]);
        expect(all.values[1]?.headers).toEqual({});
        expect(other.values.map((m) => m.data)).toEqual(["marker"]);
      });

      it("gives each message to one member of a queue group, and to every plain subscription", async () => {
        const first = record(bus.subscribe<number>(`${prefix}.jobs`, { queue: "workers" }));
        const second = record(bus.subscribe<number>(`${prefix}.jobs`, { queue: "workers" }));
        const plain = record(bus.subscribe<number>(`${prefix}.jobs`));
        for (let n = 0; n < 20; n += 1) bus.publish(`${prefix}.jobs`, n);
        await waitFor(() => first.values.length + second.values.length === 20 && plain.values.length === 20, "20 messages each");

        const grouped = [...first.values, ...second.values].map((m) => m.data).sort((a, b) => a - b);
        expect(grouped).toEqual([...Array(20).keys()]);
        expect(plain.values.map((m) => m.data)).toEqual([...Array(20).keys()]);
      });

      it("stops delivering once unsubscribed", async () => {
        const gone = record(bus.subscribe<string>(`${prefix}.news`));
        const stays = record(bus.subscribe<string>(`${prefix}.news`));
        bus.publish(`${prefix}.news`, "one");
        await waitFor(() => gone.values.length === 1 && stays.values.length === 1, "first message");
        gone.subscription.unsubscribe();
        bus.publish(`${prefix}.news`, "two");
        await waitFor(() => stays.values.length === 2, "second message");
        expect(gone.values.map((m) => m.data)).toEqual(["one"]);
      });

      it("refuses invalid subjects with InvalidSubjectError", async () => {
        expect(() => bus.publish(`${prefix}.a.*`, 1)).toThrow(InvalidSubjectError);
        expect(() => bus.publish(`${prefix}..a`, 1)).toThrow(InvalidSubjectError);
        await expect(firstValueFrom(bus.subscribe(`${prefix}.>.a`))).rejects.toBeInstanceOf(InvalidSubjectError);
      });
    });

    describe("request / reply", () => {
      it("emits the reply and completes; the responder sees data and headers", async () => {
        const served: BusMessage<{ n: number }>[] = [];
        const answering = bus.subscribe<{ n: number }>(`${prefix}.double`).subscribe((m) => {
          served.push(m);
          m.respond({ doubled: m.data.n * 2 });
        });
        const request = bus.request<{ n: number }, { doubled: number }>(`${prefix}.double`, { n: 21 }, { timeoutMs: 5_000, headers: { "x-req": "r1" } });
        expect(await lastValueFrom(request.pipe(toArray()))).toEqual([{ doubled: 42 }]);
        expect(served.map((m) => [m.data, m.headers])).toEqual([[{ n: 21 }, { "x-req": "r1" }]]);
        answering.unsubscribe();
      });

      it("respond() is false for a message that is no request", async () => {
        const got = record(bus.subscribe<string>(`${prefix}.plain`));
        bus.publish(`${prefix}.plain`, "x");
        await waitFor(() => got.values.length === 1, "the publish");
        expect(got.values[0]?.respond("answer")).toBe(false);
      });

      it("errors with NoRespondersError when nobody listens", async () => {
        const error = await firstValueFrom(bus.request(`${prefix}.nobody.home`, {}, { timeoutMs: 5_000 })).catch((err: unknown) => err);
        expect(error).toBeInstanceOf(NoRespondersError);
        expect((error as NoRespondersError).subject).toBe(`${prefix}.nobody.home`);
      });

      it("errors with BusTimeoutError when the responder stays silent", async () => {
        const silent = record(bus.subscribe(`${prefix}.silent`));
        const started = performance.now();
        const error = await firstValueFrom(bus.request(`${prefix}.silent`, {}, { timeoutMs: 300 })).catch((err: unknown) => err);
        expect(error).toBeInstanceOf(BusTimeoutError);
        expect(error).toMatchObject({ subject: `${prefix}.silent`, timeoutMs: 300 });
        expect(performance.now() - started).toBeGreaterThanOrEqual(250);
        expect(silent.values).toHaveLength(1);
      });

      it("is cold: each subscription sends its own request", async () => {
        let count = 0;
        const answering = bus.subscribe<string>(`${prefix}.count`).subscribe((m) => m.respond(++count));
        const request = bus.request<string, number>(`${prefix}.count`, "?", { timeoutMs: 5_000 });
        expect(count).toBe(0);
        expect(await firstValueFrom(request)).toBe(1);
        expect(await firstValueFrom(request)).toBe(2);
        answering.unsubscribe();
      });

      it("drops a reply that arrives after the caller unsubscribed", async () => {
        const held = record(bus.subscribe<string>(`${prefix}.slow`));
        const early = record(bus.request<string, string>(`${prefix}.slow`, "first", { timeoutMs: 5_000 }));
        await waitFor(() => held.values.length === 1, "the first request");
        early.subscription.unsubscribe();
        held.values[0]?.respond("too late");

        const late = record(bus.request<string, string>(`${prefix}.slow`, "second", { timeoutMs: 5_000 }));
        await waitFor(() => held.values.length === 2, "the second request");
        held.values[1]?.respond("in time");
        await waitFor(() => late.completed(), "the second reply");
        expect(late.values).toEqual(["in time"]);
        expect(early.values).toEqual([]);
        expect(early.errors).toEqual([]);
      });
    });

    describe("persist", () => {
      it("acks with ascending positions; a repeated msgId acks duplicate with the original position", async () => {
        const a = await persist(bus, s.turn(0), "a", { msgId: "discord:1" });
        const b = await persist(bus, s.turn(1), "b", { msgId: "discord:2" });
        const again = await persist(bus, s.turn(0), "a again", { msgId: "discord:1" });
        expect(a.duplicate).toBe(false);
        expect(b).toEqual({ seq: a.seq + 1, duplicate: false });
        expect(again).toEqual({ seq: a.seq, duplicate: true });
        const without = await persist(bus, s.turn(0), "no id");
        expect(without).toEqual({ seq: b.seq + 1, duplicate: false });
      });

      it("is lazy: nothing is stored until the ack Observable is subscribed", async () => {
        const lazy = bus.persist(s.turn(0), "lazy");
        const first = await persist(bus, s.turn(0), "first");
        expect(await firstValueFrom(lazy)).toEqual({ seq: first.seq + 1, duplicate: false });
        const w = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => w.values.length === 2, "both messages");
        expect(seen(w)).toEqual(["first#1", "lazy#1"]);
      });

      it("refuses a wildcard subject with InvalidSubjectError", async () => {
        await expect(persist(bus, s.turns, "x")).rejects.toBeInstanceOf(InvalidSubjectError);
      });
    });

    describe("consume", () => {
      it("delivers the backlog oldest first, with subject, headers, position, delivery count and msgId", async () => {
        const a = await persist(bus, s.turn(0), "a", { msgId: "discord:1", headers: { "x-k": "v" } });
        const b = await persist(bus, s.turn(1), "b");
        const w = record(bus.consume<string>(s.turns, { durable: s.turnConsumer }));
        await waitFor(() => w.values.length === 2, "the backlog");
        expect(w.values.map(({ subject, data, headers, seq, deliveryCount, msgId }) => ({ subject, data, headers, seq, deliveryCount, msgId }))).toEqual([
          { subject: s.turn(0), data: "a", headers: { "x-k": "v" }, seq: a.seq, deliveryCount: 1, msgId: "discord:1" },
          { subject: s.turn(1), data: "b", headers: {}, seq: b.seq, deliveryCount: 1, msgId: undefined },
        ]);
      });

      it("delivers only what the filter matches", async () => {
        await persist(bus, s.turn(1), "other partition");
        await persist(bus, s.turn(0), "mine");
        const w = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => w.values.length === 1, "partition 0");
        const v = record(bus.consume<string>(s.turn(1), { durable: s.partitionConsumer(1) }));
        await waitFor(() => v.values.length === 1, "partition 1");
        expect(seen(w)).toEqual(["mine#1"]);
        expect(seen(v)).toEqual(["other partition#1"]);
      });

      it("gives each message to one subscription of a durable", async () => {
        const first = record(bus.consume<number>(s.turns, { durable: s.turnConsumer }));
        const second = record(bus.consume<number>(s.turns, { durable: s.turnConsumer }));
        for (let n = 0; n < 10; n += 1) await persist(bus, s.turn(n % 2), n);
        await waitFor(() => first.values.length + second.values.length === 10, "10 deliveries");
        const all = [...first.values, ...second.values].map((m) => m.data).sort((x, y) => x - y);
        expect(all).toEqual([...Array(10).keys()]);
        expect([...first.values, ...second.values].every((m) => m.deliveryCount === 1)).toBe(true);
      });

      it("ack removes the message: a later subscription of the durable does not get it again", async () => {
        await persist(bus, s.turn(0), "a");
        const w = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => w.values.length === 1, "a");
        w.values[0]?.ack();
        w.values[0]?.ack(); // idempotent
        w.values[0]?.nak(); // ignored after ack
        w.subscription.unsubscribe();

        await persist(bus, s.turn(0), "b");
        const again = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => again.values.length === 1, "b");
        expect(seen(again)).toEqual(["b#1"]);
      });

      it("nak hands the message back at once: redelivered with deliveryCount 2", async () => {
        await persist(bus, s.turn(0), "a");
        const w = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => w.values.length === 1, "a");
        w.values[0]?.nak();
        w.values[0]?.nak(); // idempotent
        await waitFor(() => w.values.length === 2, "the redelivery");
        w.values[1]?.nak();
        await waitFor(() => w.values.length === 3, "the second redelivery");
        expect(seen(w)).toEqual(["a#1", "a#2", "a#3"]);
        expect(w.values[2]?.seq).toBe(w.values[0]?.seq);
        w.values[2]?.ack();
      });

      it("unsubscribing while holding a message hands it back to the next subscription", async () => {
        await persist(bus, s.turn(0), "held");
        const first = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => first.values.length === 1, "held");
        first.subscription.unsubscribe();
        const second = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => second.values.length === 1, "the redelivery");
        expect(seen(second)).toEqual(["held#2"]);
      });

      it("a claimed message stays with its delivery when the subscription ends: the others go to the next subscription, the claimed ones once naked or never once acked", async () => {
        await persist(bus, s.turn(0), "running");
        await persist(bus, s.turn(0), "waiting");
        await persist(bus, s.turn(0), "finishing");
        const first = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => first.values.length === 3, "all three");
        first.values[0]?.claim();
        first.values[2]?.claim();
        first.values[2]?.claim(); // idempotent
        first.subscription.unsubscribe();
        const second = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => second.values.length === 1, "the unclaimed one handed back");
        await quiet(300);
        expect(seen(second)).toEqual(["waiting#2"]);
        // The claimer settles what it claimed after its subscription ended.
        first.values[2]?.ack();
        first.values[0]?.nak();
        await waitFor(() => second.values.length === 2, "the claimed one, once naked");
        expect(seen(second)).toEqual(["waiting#2", "running#2"]);
        // A claim belongs to its delivery: the redelivery is handed back as usual.
        second.subscription.unsubscribe();
        const third = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => third.values.length === 2, "both handed back");
        await quiet(300);
        expect(seen(third).sort()).toEqual(["running#3", "waiting#3"]);
        for (const message of third.values) message.ack();
      });

      it("hands out at most maxAckPending unacked messages", async () => {
        await persist(bus, s.turn(0), "a");
        await persist(bus, s.turn(0), "b");
        const w = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0), maxAckPending: 1 }));
        await waitFor(() => w.values.length === 1, "a");
        await quiet(300);
        expect(seen(w)).toEqual(["a#1"]);
        w.values[0]?.ack();
        await waitFor(() => w.values.length === 2, "b after the ack");
        expect(seen(w)).toEqual(["a#1", "b#1"]);
      });

      it("refuses to reuse a durable name with another filter or maxAckPending (ConsumerConflictError)", async () => {
        await persist(bus, s.turn(0), "a");
        const w = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0), maxAckPending: 5 }));
        await waitFor(() => w.values.length === 1, "the durable to exist");

        const otherFilter = await firstValueFrom(bus.consume(s.turn(1), { durable: s.partitionConsumer(0), maxAckPending: 5 })).catch((err: unknown) => err);
        expect(otherFilter).toBeInstanceOf(ConsumerConflictError);
        expect((otherFilter as Error).message).toContain(`consumes "${s.turn(0)}", not "${s.turn(1)}"`);

        const otherLimit = await firstValueFrom(bus.consume(s.turn(0), { durable: s.partitionConsumer(0), maxAckPending: 6 })).catch((err: unknown) => err);
        expect(otherLimit).toBeInstanceOf(ConsumerConflictError);
        expect((otherLimit as Error).message).toContain("has maxAckPending 5, not 6");
        expect(w.errors).toEqual([]);
      });
    });

    describe("close", () => {
      it("completes subscriptions, fails waiting requests, and refuses further use with BusClosedError", async () => {
        const core = record(bus.subscribe(`${prefix}.x`));
        const waiting = record(bus.request(`${prefix}.x`, "?", { timeoutMs: 10_000 }));
        await waitFor(() => core.values.length === 1, "the request to arrive");
        await persist(bus, s.turn(0), "a");
        const durable = record(bus.consume<string>(s.turn(0), { durable: s.partitionConsumer(0) }));
        await waitFor(() => durable.values.length === 1, "a");

        await bus.close();
        await bus.close(); // idempotent
        expect(core.completed()).toBe(true);
        expect(durable.completed()).toBe(true);
        expect(waiting.errors).toHaveLength(1);
        expect(waiting.errors[0]).toBeInstanceOf(BusClosedError);

        expect(() => bus.publish(`${prefix}.x`, 1)).toThrow(BusClosedError);
        await expect(firstValueFrom(bus.subscribe(`${prefix}.x`))).rejects.toBeInstanceOf(BusClosedError);
        await expect(firstValueFrom(bus.request(`${prefix}.x`, 1, { timeoutMs: 1_000 }))).rejects.toBeInstanceOf(BusClosedError);
        await expect(persist(bus, s.turn(0), "b")).rejects.toBeInstanceOf(BusClosedError);
        await expect(firstValueFrom(bus.consume(s.turn(0), { durable: s.partitionConsumer(0) }))).rejects.toBeInstanceOf(BusClosedError);
      });
    });
  });
}
