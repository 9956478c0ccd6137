import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { KeyLock } from "../../../src/acp/pool/keyLock.js";

/** Lets every queued promise callback run. */
async function flush(): Promise<void> {
  await tick();
  await tick();
}

/** Tracks whether a promise has settled, without awaiting it. */
function track<T>(promise: Promise<T>): { readonly settled: boolean; readonly value: T | undefined } {
  const state = { settled: false, value: undefined as T | undefined };
  void promise.then((value) => {
    state.settled = true;
    state.value = value;
  });
  return state;
}

describe("KeyLock", () => {
  it("grants a free key at once", async () => {
    const lock = new KeyLock();
    const release = await lock.acquire("telegram:1");
    expect(typeof release).toBe("function");
    expect(lock.isBusy("telegram:1")).toBe(true);
    expect(lock.size).toBe(1);
  });

  it("grants one key to its waiters in FIFO order, one at a time", async () => {
    const lock = new KeyLock();
    const log: string[] = [];
    const holder = async (name: string) => {
      const release = await lock.acquire("k");
      log.push(`${name} in`);
      await flush();
      log.push(`${name} out`);
      release();
    };
    await Promise.all(["a", "b", "c", "d", "e"].map(holder));
    expect(log).toEqual(["a in", "a out", "b in", "b out", "c in", "c out", "d in", "d out", "e in", "e out"]);
    expect(lock.size).toBe(0);
  });

  it("keeps a waiter waiting until the holder releases", async () => {
    const lock = new KeyLock();
    const releaseFirst = await lock.acquire("k");
    const second = track(lock.acquire("k"));
    await flush();
    expect(second.settled).toBe(false);
    releaseFirst();
    await flush();
    expect(second.settled).toBe(true);
  });

  it("hands the key to the next waiter only, in request order", async () => {
    const lock = new KeyLock();
    const releaseA = await lock.acquire("k");
    const b = track(lock.acquire("k"));
    const c = track(lock.acquire("k"));
    releaseA();
    await flush();
    expect(b.settled).toBe(true);
    expect(c.settled).toBe(false);
    b.value!();
    await flush();
    expect(c.settled).toBe(true);
    c.value!();
    expect(lock.size).toBe(0);
  });

  it("does not make independent keys wait on each other", async () => {
    const lock = new KeyLock();
    const releaseA = await lock.acquire("a");
    const b = track(lock.acquire("b"));
    await flush();
    expect(b.settled).toBe(true);
    expect(lock.isBusy("a")).toBe(true);
    expect(lock.isBusy("b")).toBe(true);
    expect(lock.size).toBe(2);
    b.value!();
    expect(lock.isBusy("b")).toBe(false);
    expect(lock.isBusy("a")).toBe(true);
    releaseA();
  });

  it("counts a waiter as busy", async () => {
    const lock = new KeyLock();
    const releaseA = await lock.acquire("k");
    const b = track(lock.acquire("k"));
    releaseA();
    // Released by its holder, but b is still queued for it.
    expect(lock.isBusy("k")).toBe(true);
    await flush();
    b.value!();
    expect(lock.isBusy("k")).toBe(false);
  });

  it("makes release idempotent: a second call neither frees the next holder's turn nor miscounts", async () => {
    const lock = new KeyLock();
    const releaseA = await lock.acquire("k");
    const b = track(lock.acquire("k"));
    const c = track(lock.acquire("k"));
    releaseA();
    releaseA();
    releaseA();
    await flush();
    expect(b.settled).toBe(true);
    // b holds the key; a's extra releases must not have let c in.
    expect(c.settled).toBe(false);
    expect(lock.isBusy("k")).toBe(true);
    expect(lock.size).toBe(1);
    b.value!();
    b.value!();
    await flush();
    expect(c.settled).toBe(true);
    expect(lock.isBusy("k")).toBe(true);
    c.value!();
    expect(lock.isBusy("k")).toBe(false);
    expect(lock.size).toBe(0);
  });

  it("frees a key when its last holder releases, so the next acquire is immediate", async () => {
    const lock = new KeyLock();
    const release = await lock.acquire("k");
    release();
    expect(lock.isBusy("k")).toBe(false);
    expect(lock.size).toBe(0);
    const again = track(lock.acquire("k"));
    await flush();
    expect(again.settled).toBe(true);
  });

  it("leaks no entries after 1,000 acquire/release cycles on distinct keys", async () => {
    const lock = new KeyLock();
    for (let i = 0; i < 1_000; i++) {
      const release = await lock.acquire(`key-${i}`);
      expect(lock.isBusy(`key-${i}`)).toBe(true);
      release();
    }
    expect(lock.size).toBe(0);
    expect(lock.isBusy("key-0")).toBe(false);
    expect(lock.isBusy("key-999")).toBe(false);
  });

  it("leaks no entries after 1,000 overlapping acquires on one shared key and 50 others", async () => {
    const lock = new KeyLock();
    let running = 0;
    let maxRunningPerKey = 0;
    const perKey = new Map<string, number>();
    await Promise.all(
      Array.from({ length: 1_000 }, async (_, i) => {
        const key = i % 2 === 0 ? "shared" : `key-${i % 100}`;
        const release = await lock.acquire(key);
        running++;
        perKey.set(key, (perKey.get(key) ?? 0) + 1);
        maxRunningPerKey = Math.max(maxRunningPerKey, perKey.get(key)!);
        await tick();
        perKey.set(key, perKey.get(key)! - 1);
        running--;
        release();
      }),
    );
    expect(maxRunningPerKey).toBe(1);
    expect(running).toBe(0);
    expect(lock.size).toBe(0);
    expect(lock.isBusy("shared")).toBe(false);
  });
});
