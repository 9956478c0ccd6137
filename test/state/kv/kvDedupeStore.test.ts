import { describe, expect, it } from "vitest";
import { StateStoreError } from "../../../src/state/errors.js";
import { KvDedupeStore } from "../../../src/state/kv/kvDedupeStore.js";
import { kvKey } from "../../../src/state/kv/kvKey.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { describeDedupeStoreContract } from "../contracts/dedupeStoreContract.js";
import { dedupeAsPromises } from "../contracts/storePromises.js";
import { natsKvFixture } from "./natsKv.js";

describe.skipIf(!natsServerAvailable())("KvDedupeStore", () => {
  const nats = natsKvFixture();

  describe("the DedupeStore contract", () => {
    describeDedupeStoreContract(async ({ ttlMs }) => new KvDedupeStore((await nats.bucket()).kv, { ttlMs }));
  });

  describe("the DedupeStore contract, writing through BucketWrites (as openSharedState builds it)", () => {
    describeDedupeStoreContract(async ({ ttlMs }) => {
      const { kv, writes } = await nats.bucketWithWrites();
      return new KvDedupeStore(kv, { ttlMs, writes });
    });
  });

  it("keeps one { state, owner, at } record per key", async () => {
    const { kv } = await nats.bucket();
    const store = dedupeAsPromises(new KvDedupeStore(kv, { ttlMs: 1000 }));
    await store.claim("k", "telegram:e1", 5);
    expect((await kv.get(kvKey("k")))?.json()).toEqual({ state: "inflight", owner: "telegram:e1", at: 5 });
    await store.commit("k", 7);
    expect((await kv.get(kvKey("k")))?.json()).toEqual({ state: "committed", owner: "telegram:e1", at: 7 });
    await store.claim("k", "telegram:e2", 9);
    expect((await kv.get(kvKey("k")))?.json()).toEqual({ state: "committed", owner: "telegram:e1", at: 9 });
  });

  it("lets exactly one of several workers claim a message all of them see at once", async () => {
    const { name } = await nats.bucket();
    const workers = await Promise.all([1, 2, 3].map(async () => dedupeAsPromises(new KvDedupeStore(await nats.open(await nats.connect(), name), { ttlMs: 60_000 }))));
    for (const round of [1, 2, 3, 4, 5]) {
      const key = `msg-${round}`;
      const claims = await Promise.all(workers.map((worker, i) => worker.claim(key, `telegram:e${i}`, round)));
      expect(claims.filter((claim) => claim === "claimed")).toHaveLength(1);
      expect(claims.filter((claim) => claim === "inflight")).toHaveLength(2);
    }
  });

  it("rejects with a StateStoreError when a stored record has an unknown shape, and leaves it", async () => {
    const { kv } = await nats.bucket();
    await kv.put(kvKey("k"), JSON.stringify({ state: "paused", owner: "x", at: 1 }));
    const store = dedupeAsPromises(new KvDedupeStore(kv, { ttlMs: 1000 }));
    await expect(store.claim("k", "telegram:e1", 2)).rejects.toMatchObject({ name: "StateStoreError", store: "dedupe", operation: "claim", key: "k" });
    await expect(store.commit("k", 2)).rejects.toBeInstanceOf(StateStoreError);
    expect((await kv.get(kvKey("k")))?.json()).toEqual({ state: "paused", owner: "x", at: 1 });
  });

  it("rejects with a StateStoreError carrying the client's error when the connection is closed", async () => {
    const nc = await nats.connect();
    const { name } = await nats.bucket();
    const store = dedupeAsPromises(new KvDedupeStore(await nats.open(nc, name), { ttlMs: 1000 }));
    await nc.close();
    for (const operation of [store.claim("k", "o", 0), store.commit("k", 0), store.release("k", "o")]) {
      const error = await operation.catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StateStoreError);
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
  });
});
