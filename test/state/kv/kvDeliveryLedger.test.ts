import { firstValueFrom, lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { StateStoreError } from "../../../src/state/errors.js";
import { KvDeliveryLedger } from "../../../src/state/kv/kvDeliveryLedger.js";
import { kvKey } from "../../../src/state/kv/kvKey.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { describeDeliveryLedgerContract } from "../contracts/deliveryLedgerContract.js";
import { natsKvFixture } from "./natsKv.js";

describe.skipIf(!natsServerAvailable())("KvDeliveryLedger", () => {
  const nats = natsKvFixture();

  describe("the DeliveryLedger contract", () => {
    describeDeliveryLedgerContract(async () => new KvDeliveryLedger((await nats.bucket()).kv));
  });

  describe("the DeliveryLedger contract, writing through BucketWrites (as openSharedState builds it)", () => {
    describeDeliveryLedgerContract(async () => {
      const { kv, writes } = await nats.bucketWithWrites();
      return new KvDeliveryLedger(kv, { writes });
    });
  });

  it("lets exactly one of two workers beginning one event at once see it new", async () => {
    const { name } = await nats.bucket();
    const [one, two] = await Promise.all([1, 2].map(async () => new KvDeliveryLedger(await nats.open(await nats.connect(), name))));
    if (one === undefined || two === undefined) throw new Error("two workers expected");
    for (const round of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const key = `telegram:evt-${round}`;
      const before = await Promise.all([firstValueFrom(one.begin(key, round)), firstValueFrom(two.begin(key, round))]);
      expect(before.filter((record) => record === undefined)).toHaveLength(1);
      expect(before.find((record) => record !== undefined)).toMatchObject({ state: "started", attempts: 1 });
      await expect(firstValueFrom(one.begin(key, round))).resolves.toMatchObject({ attempts: 2 }); // both attempts landed
    }
  });

  it("keeps the highest delivered count when workers report at once", async () => {
    const { name } = await nats.bucket();
    const workers = await Promise.all([1, 2, 3].map(async () => new KvDeliveryLedger(await nats.open(await nats.connect(), name))));
    const [first, second] = workers;
    if (first === undefined || second === undefined) throw new Error("three workers expected");
    await firstValueFrom(first.begin("k", 1));
    await Promise.all(workers.flatMap((worker, i) => [1, 2, 3].map((n) => lastValueFrom(worker.delivered("k", n * 3 - i, 2), { defaultValue: undefined }))));
    await expect(firstValueFrom(second.begin("k", 3))).resolves.toMatchObject({ delivered: 9 });
  });

  it("writes over its own last write without reading, yet never over another worker's newer one", async () => {
    const { name, kv } = await nats.bucket();
    const [mine, theirs] = await Promise.all([1, 2].map(async () => new KvDeliveryLedger(await nats.open(await nats.connect(), name))));
    if (mine === undefined || theirs === undefined) throw new Error("two workers expected");
    await expect(firstValueFrom(mine.begin("k", 1))).resolves.toBeUndefined(); // created without a read
    const afterBegin = (await kv.get(kvKey("k")))?.revision;
    await lastValueFrom(mine.delivered("k", 1, 2), { defaultValue: undefined }); // over its own write
    expect((await kv.get(kvKey("k")))?.revision).toBe((afterBegin ?? 0) + 1);
    // Another worker moves the record on; this worker's knowledge is stale now.
    await lastValueFrom(theirs.delivered("k", 4, 3), { defaultValue: undefined });
    await lastValueFrom(mine.complete("k", 4), { defaultValue: undefined });
    expect((await kv.get(kvKey("k")))?.json()).toMatchObject({ state: "complete", delivered: 4, attempts: 1 });
    // A begin on a key another worker created reads it, however it guessed.
    await firstValueFrom(theirs.begin("fresh-elsewhere", 5));
    await expect(firstValueFrom(mine.begin("fresh-elsewhere", 6))).resolves.toMatchObject({ state: "started", attempts: 1 });
  });

  it("writes after a read over the revision it read: a redelivered event's begin is one update", async () => {
    const { name, kv } = await nats.bucket();
    const [earlier, later] = await Promise.all([1, 2].map(async () => new KvDeliveryLedger(await nats.open(await nats.connect(), name))));
    if (earlier === undefined || later === undefined) throw new Error("two workers expected");
    await firstValueFrom(earlier.begin("k", 1)); // the worker that died after its first send
    const revision = (await kv.get(kvKey("k")))?.revision ?? 0;
    await expect(firstValueFrom(later.read("k"))).resolves.toMatchObject({ state: "started", attempts: 1 });
    await expect(firstValueFrom(later.begin("k", 2))).resolves.toMatchObject({ attempts: 1 });
    expect((await kv.get(kvKey("k")))?.revision).toBe(revision + 1); // one write, no conflict and retry
    await expect(firstValueFrom(earlier.read("absent"))).resolves.toBeUndefined();
  });

  it("rejects with a StateStoreError when a stored record has an unknown shape", async () => {
    const { kv } = await nats.bucket();
    await kv.put(kvKey("k"), JSON.stringify({ state: "started", attempts: "1" }));
    await expect(firstValueFrom(new KvDeliveryLedger(kv).begin("k", 1))).rejects.toMatchObject({ name: "StateStoreError", store: "ledger", operation: "begin" });
    await expect(firstValueFrom(new KvDeliveryLedger(kv).read("k"))).rejects.toMatchObject({ name: "StateStoreError", store: "ledger", operation: "read" });
  });

  it("rejects with a StateStoreError carrying the client's error when the connection is closed", async () => {
    const nc = await nats.connect();
    const { name } = await nats.bucket();
    const ledger = new KvDeliveryLedger(await nats.open(nc, name));
    await nc.close();
    const operations = [ledger.read("k"), ledger.begin("k", 0), ledger.delivered("k", 1, 0), ledger.complete("k", 0)];
    for (const operation of operations.map((observable) => firstValueFrom<unknown>(observable))) {
      const error = await operation.catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StateStoreError);
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
  });
});
