import { firstValueFrom, type Observable, toArray } from "rxjs";
import { expect, it } from "vitest";
import { admit } from "../../../operators/triage/admit.js";
import type { TriageState } from "../../../operators/triage/triageState.js";
import type { TriageStore } from "../../../src/state/triageStore.js";
import { enabled } from "../../operators/triage/conversations.js";

const woke = (atMs: number): TriageState => ({ lastWakeMs: atMs, day: "2026-08-25", count: 1 });

/** The one value a store's Observable emits (the contract: exactly one, then complete). */
async function only<T>(observable: Observable<T>): Promise<T> {
  const values = await firstValueFrom(observable.pipe(toArray()));
  expect(values).toHaveLength(1);
  return values[0] as T;
}

/** The contract every TriageStore keeps; call inside a `describe`. `makeStore` gives an empty store. */
export function describeTriageStoreContract(makeStore: () => TriageStore | Promise<TriageStore>): void {
  it("reads undefined for an unknown key", async () => {
    expect(await only((await makeStore()).read("telegram:c1"))).toBeUndefined();
  });

  it("creates a key only when no revision is expected, and reads back the state with its revision", async () => {
    const store = await makeStore();
    expect(await only(store.compareAndSet("telegram:c1", woke(1), 7))).toBe(false);
    expect(await only(store.compareAndSet("telegram:c1", woke(1), 0))).toBe(false);
    expect(await only(store.compareAndSet("telegram:c1", woke(1), undefined))).toBe(true);
    const entry = await only(store.read("telegram:c1"));
    expect(entry?.state).toEqual(woke(1));
    expect(entry?.revision).toEqual(expect.any(Number));
    expect(await only(store.compareAndSet("telegram:c1", woke(2), undefined))).toBe(false); // exists now
  });

  it("updates only from the current revision; a stale one conflicts and changes nothing", async () => {
    const store = await makeStore();
    await only(store.compareAndSet("telegram:c1", woke(1), undefined));
    const first = await only(store.read("telegram:c1"));
    expect(await only(store.compareAndSet("telegram:c1", woke(2), first?.revision))).toBe(true);
    const second = await only(store.read("telegram:c1"));
    expect(second?.revision).not.toBe(first?.revision);
    expect(await only(store.compareAndSet("telegram:c1", woke(3), first?.revision))).toBe(false);
    expect(await only(store.read("telegram:c1"))).toEqual(second);
  });

  it("keeps keys apart, including keys with characters a KV key cannot hold", async () => {
    const store = await makeStore();
    const keys = ["telegram:c1", "telegram:c2", "discord:555/777", 'slack:C1 "好" 🎉', "a.b", "a=2Eb", ""];
    for (const [i, key] of keys.entries()) expect(await only(store.compareAndSet(key, woke(i), undefined))).toBe(true);
    for (const [i, key] of keys.entries()) expect((await only(store.read(key)))?.state).toEqual(woke(i));
  });

  it("does nothing until subscribed (lazy Observables)", async () => {
    const store = await makeStore();
    const write = store.compareAndSet("telegram:c1", woke(1), undefined);
    const sweep = store.sweep(Number.MAX_SAFE_INTEGER);
    expect(await only(store.read("telegram:c1"))).toBeUndefined();
    expect(await only(write)).toBe(true);
    expect(await only(store.read("telegram:c1"))).toBeDefined();
    expect(await only(sweep)).toBe(1);
  });

  it("sweeps conversations older than the cutoff or without activity, keeps the rest untouched", async () => {
    const store = await makeStore();
    await only(store.compareAndSet("stale", woke(999), undefined));
    await only(store.compareAndSet("edge", woke(1_000), undefined));
    await only(store.compareAndSet("fresh", woke(5_000), undefined));
    await only(store.compareAndSet("idle", { count: 0, day: "2026-08-25" }, undefined));
    const fresh = await only(store.read("fresh"));
    expect(await only(store.sweep(1_000))).toBe(2);
    expect(await only(store.read("stale"))).toBeUndefined();
    expect(await only(store.read("idle"))).toBeUndefined();
    expect((await only(store.read("edge")))?.state).toEqual(woke(1_000));
    expect(await only(store.read("fresh"))).toEqual(fresh);
    expect(await only(store.sweep(1_000))).toBe(0); // nothing left to sweep: swept keys stay gone
  });

  it("sweeps an empty store to 0", async () => {
    expect(await only((await makeStore()).sweep(Number.MAX_SAFE_INTEGER))).toBe(0);
  });

  it("counts a remembered id as activity", async () => {
    const store = await makeStore();
    const seenOnly = admit(undefined, "e1", enabled({ quietHours: { startMinute: 0, endMinute: 1439 }, dedupeWindowSecs: 3600 }), 10_000).state;
    expect(seenOnly.lastWakeMs).toBeUndefined();
    await only(store.compareAndSet("telegram:c1", seenOnly, undefined));
    expect(await only(store.sweep(10_000))).toBe(0);
    expect(await only(store.sweep(10_001))).toBe(1);
  });

  it("re-creates a swept key, and never reuses a revision (no ABA)", async () => {
    const store = await makeStore();
    await only(store.compareAndSet("telegram:c1", woke(1), undefined));
    const before = await only(store.read("telegram:c1"));
    await only(store.sweep(2));
    expect(await only(store.compareAndSet("telegram:c1", woke(4), before?.revision))).toBe(false);
    expect(await only(store.compareAndSet("telegram:c1", woke(3), undefined))).toBe(true);
    expect(await only(store.compareAndSet("telegram:c1", woke(4), before?.revision))).toBe(false);
    expect((await only(store.read("telegram:c1")))?.state).toEqual(woke(3));
  });
}
