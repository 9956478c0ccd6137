import { expect, it } from "vitest";
import type { DedupeStore } from "../../../src/state/dedupeStore.js";
import { dedupeAsPromises, doneOf, emitted, valueOf } from "./storePromises.js";

const minutes = (n: number): number => n * 60_000;
const KEY = '["telegram","c1","","42"]';

/** The contract every DedupeStore keeps; call inside a `describe`. `makeStore` gives an empty store with that TTL. */
export function describeDedupeStoreContract(makeStore: (options: { readonly ttlMs: number }) => DedupeStore | Promise<DedupeStore>): void {
  const makePromised = async (options: { readonly ttlMs: number }) => dedupeAsPromises(await makeStore(options));

  it("emits one value for claim, and completes commit and release without a value", async () => {
    const store = await makeStore({ ttlMs: minutes(20) });
    expect(await emitted(store.claim(KEY, "telegram:e1", 0))).toEqual(["claimed"]);
    expect(await emitted(store.release(KEY, "telegram:e1"))).toEqual([]);
    expect(await emitted(store.commit(KEY, 1))).toEqual([]);
  });

  it("is cold: an operation runs on each subscription, and not before", async () => {
    const store = await makeStore({ ttlMs: minutes(20) });
    const claim = store.claim(KEY, "telegram:e1", 0);
    const commit = store.commit(KEY, 0);
    expect(await valueOf(store.claim(KEY, "telegram:e2", 0))).toBe("claimed"); // neither ran yet
    await doneOf(store.release(KEY, "telegram:e2"));
    expect(await valueOf(claim)).toBe("claimed");
    expect(await valueOf(store.claim(KEY, "telegram:e2", 1))).toBe("inflight");
    await doneOf(commit);
    expect(await valueOf(claim)).toBe("duplicate"); // the same claim, subscribed again, asks again
  });

  it("expires from the refreshed time (TTL 20 min: claimed, duplicate, duplicate, claimed)", async () => {
    const store = await makePromised({ ttlMs: minutes(20) });
    const t0 = 1_000_000;
    expect(await store.claim(KEY, "telegram:e1", t0)).toBe("claimed");
    await store.commit(KEY, t0);
    expect(await store.claim(KEY, "telegram:e1", t0 + 1_000)).toBe("duplicate");
    // The redelivery at t0+1s refreshed the window: just under 20 min later it is still a duplicate…
    expect(await store.claim(KEY, "telegram:e2", t0 + 1_000 + minutes(20) - 1)).toBe("duplicate");
    // …and 20 min after the last sighting it runs again.
    expect(await store.claim(KEY, "telegram:e3", t0 + 1_000 + minutes(20) - 1 + minutes(20))).toBe("claimed");
  });

  it("reports another owner's copy that arrives while the first still runs as inflight", async () => {
    const store = await makePromised({ ttlMs: minutes(20) });
    expect(await store.claim(KEY, "telegram:e1", 0)).toBe("claimed");
    expect(await store.claim(KEY, "telegram:e2", 10)).toBe("inflight");
  });

  it("lets the same owner claim its in-flight key again (a redelivery after its worker died)", async () => {
    const store = await makePromised({ ttlMs: minutes(20) });
    expect(await store.claim(KEY, "telegram:e1", 0)).toBe("claimed");
    expect(await store.claim(KEY, "telegram:e1", 10)).toBe("claimed");
    expect(await store.claim(KEY, "telegram:e2", 20)).toBe("inflight"); // still held by e1
    await store.commit(KEY, 30);
    expect(await store.claim(KEY, "telegram:e1", 40)).toBe("duplicate");
  });

  it("releases a failed turn's key so a redelivery can run it", async () => {
    const store = await makePromised({ ttlMs: minutes(20) });
    expect(await store.claim(KEY, "telegram:e1", 0)).toBe("claimed");
    await store.release(KEY, "telegram:e1");
    expect(await store.claim(KEY, "telegram:e2", 10)).toBe("claimed");
  });

  it("releases only the owner's in-flight claim", async () => {
    const store = await makePromised({ ttlMs: minutes(20) });
    expect(await store.claim(KEY, "telegram:e1", 0)).toBe("claimed");
    await store.release(KEY, "telegram:e2");
    expect(await store.claim(KEY, "telegram:e2", 10)).toBe("inflight");
    await store.commit(KEY, 20);
    await store.release(KEY, "telegram:e1"); // committed: nothing in flight to release
    expect(await store.claim(KEY, "telegram:e1", 30)).toBe("duplicate");
  });

  it("releases and commits unknown keys without error", async () => {
    const store = await makePromised({ ttlMs: minutes(20) });
    await expect(store.release(KEY, "telegram:e1")).resolves.toBeUndefined();
    await expect(store.commit("other", 0)).resolves.toBeUndefined();
    expect(await store.claim("other", "telegram:e1", 1)).toBe("duplicate"); // committed without a claim still counts
  });

  it("keeps nothing when the TTL is 0 (dedupe off)", async () => {
    const store = await makePromised({ ttlMs: 0 });
    expect(await store.claim(KEY, "telegram:e1", 0)).toBe("claimed");
    await store.commit(KEY, 0);
    expect(await store.claim(KEY, "telegram:e1", 0)).toBe("claimed");
    expect(await store.claim(KEY, "telegram:e2", 1)).toBe("inflight");
  });

  it("keeps keys apart, including keys a KV key cannot hold", async () => {
    const store = await makePromised({ ttlMs: minutes(20) });
    const keys = [KEY, '["telegram","c1","","43"]', '["slack","C 好","t.1","🎉"]', ""];
    for (const key of keys) expect(await store.claim(key, "telegram:e1", 0)).toBe("claimed");
    await store.commit(keys[0] as string, 0);
    expect(await Promise.all(keys.map((key) => store.claim(key, "telegram:e2", 1)))).toEqual(["duplicate", "inflight", "inflight", "inflight"]);
  });
}
