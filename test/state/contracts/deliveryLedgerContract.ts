import { firstValueFrom, lastValueFrom, toArray, type Observable } from "rxjs";
import { expect, it } from "vitest";
import type { DeliveryLedger } from "../../../src/state/deliveryLedger.js";

const KEY = "telegram:evt-1";

/** The one value a `read` or `begin` emits (exactly one, then completes). */
const value = <T>(observable: Observable<T>): Promise<T> => firstValueFrom(observable);

/** A `delivered` or `complete` done: it completes without a value. */
const written = (observable: Observable<never>): Promise<undefined> => lastValueFrom(observable, { defaultValue: undefined });

/** The contract every DeliveryLedger keeps; call inside a `describe`. `makeLedger` gives an empty ledger. */
export function describeDeliveryLedgerContract(makeLedger: () => DeliveryLedger | Promise<DeliveryLedger>): void {
  it("begins an unknown event as new, and tells a second begin what the first recorded", async () => {
    const ledger = await makeLedger();
    await expect(value(ledger.begin(KEY, 10))).resolves.toBeUndefined();
    await expect(value(ledger.begin(KEY, 20))).resolves.toEqual({ state: "started", attempts: 1, delivered: 0, updatedAt: 10 });
    await expect(value(ledger.begin(KEY, 30))).resolves.toEqual({ state: "started", attempts: 2, delivered: 0, updatedAt: 20 });
  });

  it("reads a record without changing it, and an unknown event as undefined", async () => {
    const ledger = await makeLedger();
    await expect(value(ledger.read(KEY))).resolves.toBeUndefined();
    await value(ledger.begin(KEY, 10));
    await written(ledger.delivered(KEY, 2, 11));
    const started = { state: "started", attempts: 1, delivered: 2, updatedAt: 11 };
    await expect(value(ledger.read(KEY))).resolves.toEqual(started);
    await expect(value(ledger.read(KEY))).resolves.toEqual(started);
    await expect(value(ledger.begin(KEY, 20))).resolves.toEqual(started); // a write after a read names what was read
  });

  it("does nothing until subscribed; read and begin emit one value then complete, delivered and complete just complete", async () => {
    const ledger = await makeLedger();
    const begin = ledger.begin(KEY, 10);
    ledger.complete(KEY, 11); // never subscribed: never written
    await expect(value(ledger.read(KEY))).resolves.toBeUndefined();
    await expect(lastValueFrom(begin.pipe(toArray()))).resolves.toEqual([undefined]);
    await expect(lastValueFrom(ledger.read(KEY).pipe(toArray()))).resolves.toEqual([expect.objectContaining({ state: "started", attempts: 1 })]);
    await expect(lastValueFrom(ledger.delivered(KEY, 1, 12).pipe(toArray()))).resolves.toEqual([]);
    await expect(lastValueFrom(ledger.complete(KEY, 13).pipe(toArray()))).resolves.toEqual([]);
    await expect(value(ledger.read(KEY))).resolves.toMatchObject({ state: "complete", attempts: 1, delivered: 1 });
  });

  it("keeps the delivered count across attempts, and never lowers it", async () => {
    const ledger = await makeLedger();
    await value(ledger.begin(KEY, 10));
    await written(ledger.delivered(KEY, 1, 11));
    await written(ledger.delivered(KEY, 3, 12));
    await written(ledger.delivered(KEY, 2, 13));
    await expect(value(ledger.begin(KEY, 20))).resolves.toEqual({ state: "started", attempts: 1, delivered: 3, updatedAt: 12 });
    await expect(value(ledger.begin(KEY, 30))).resolves.toEqual({ state: "started", attempts: 2, delivered: 3, updatedAt: 20 });
  });

  it("leaves a complete event as it is: every later begin sees the same record", async () => {
    const ledger = await makeLedger();
    await value(ledger.begin(KEY, 10));
    await written(ledger.delivered(KEY, 2, 11));
    await written(ledger.complete(KEY, 12));
    const done = { state: "complete", attempts: 1, delivered: 2, updatedAt: 12 };
    await expect(value(ledger.begin(KEY, 20))).resolves.toEqual(done);
    await written(ledger.complete(KEY, 21));
    await written(ledger.delivered(KEY, 5, 22)); // a late ack still counts, the state stays complete
    await expect(value(ledger.begin(KEY, 30))).resolves.toEqual({ ...done, delivered: 5, updatedAt: 22 });
  });

  it("records delivered and complete for an event never begun (complete creates the record of a turn that sent nothing)", async () => {
    const ledger = await makeLedger();
    await written(ledger.delivered("a", 2, 5));
    await written(ledger.complete("b", 6));
    await expect(value(ledger.begin("a", 10))).resolves.toEqual({ state: "started", attempts: 0, delivered: 2, updatedAt: 5 });
    await expect(value(ledger.read("b"))).resolves.toEqual({ state: "complete", attempts: 0, delivered: 0, updatedAt: 6 });
    await expect(value(ledger.begin("b", 10))).resolves.toEqual({ state: "complete", attempts: 0, delivered: 0, updatedAt: 6 });
  });

  it("records a placeholder's id with its delivered count, keeps it across begin, drops it on complete", async () => {
    const ledger = await makeLedger();
    await value(ledger.begin(KEY, 10));
    await written(ledger.delivered(KEY, 1, 11, { id: "gw-1", kind: "placeholder" }));
    await written(ledger.delivered(KEY, 2, 12));
    await expect(value(ledger.begin(KEY, 20))).resolves.toEqual({ state: "started", attempts: 1, delivered: 2, updatedAt: 12, placeholders: ["gw-1"] });
    await written(ledger.delivered(KEY, 1, 21, { id: "gw-2", kind: "placeholder" })); // the re-run's own, its count below the first attempt's
    await expect(value(ledger.read(KEY))).resolves.toEqual({ state: "started", attempts: 2, delivered: 2, updatedAt: 21, placeholders: ["gw-1", "gw-2"] });
    await written(ledger.complete(KEY, 30));
    await expect(value(ledger.read(KEY))).resolves.toEqual({ state: "complete", attempts: 2, delivered: 2, updatedAt: 30 });
  });

  it("records a question's id apart from the placeholders, keeps it across begin, drops it on complete", async () => {
    const ledger = await makeLedger();
    await value(ledger.begin(KEY, 10));
    await written(ledger.delivered(KEY, 1, 11, { id: "q-1", kind: "question" }));
    await written(ledger.delivered(KEY, 2, 12, { id: "gw-1", kind: "placeholder" }));
    await written(ledger.delivered(KEY, 2, 13, { id: "q-1", kind: "question" })); // once
    await expect(value(ledger.begin(KEY, 20))).resolves.toEqual({ state: "started", attempts: 1, delivered: 2, updatedAt: 12, placeholders: ["gw-1"], questions: ["q-1"] });
    await written(ledger.complete(KEY, 30));
    await expect(value(ledger.read(KEY))).resolves.toEqual({ state: "complete", attempts: 2, delivered: 2, updatedAt: 30 });
  });

  it("errors on a delivered count that is not a whole number ≥ 0, recording nothing", async () => {
    const ledger = await makeLedger();
    for (const count of [-1, 1.5, Number.NaN]) await expect(written(ledger.delivered(KEY, count, 1))).rejects.toBeInstanceOf(RangeError);
    await expect(value(ledger.begin(KEY, 2))).resolves.toBeUndefined();
  });

  it("keeps events apart, including keys a KV key cannot hold", async () => {
    const ledger = await makeLedger();
    const keys = ["telegram:evt-1", "telegram:evt.1", "slack:好 🎉", ""];
    for (const key of keys) await expect(value(ledger.begin(key, 1))).resolves.toBeUndefined();
    await written(ledger.complete(keys[0] as string, 2));
    for (const key of keys.slice(1)) await expect(value(ledger.begin(key, 3))).resolves.toMatchObject({ state: "started", attempts: 1 });
  });
}
