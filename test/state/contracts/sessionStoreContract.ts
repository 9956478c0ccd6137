import { expect, it } from "vitest";
import type { SessionStore } from "../../../src/state/sessionStore.js";
import { doneOf, emitted, sessionsAsPromises } from "./storePromises.js";

/** The contract every SessionStore keeps; call inside a `describe`. `makeStore` gives an empty store. */
export function describeSessionStoreContract(makeStore: () => SessionStore | Promise<SessionStore>): void {
  const makePromised = async () => sessionsAsPromises(await makeStore());

  it("emits one value for get, and completes set and delete without a value", async () => {
    const store = await makeStore();
    expect(await emitted(store.get("telegram:1"))).toEqual([undefined]);
    expect(await emitted(store.set("telegram:1", "sess_a"))).toEqual([]);
    expect(await emitted(store.get("telegram:1"))).toEqual(["sess_a"]);
    expect(await emitted(store.delete("telegram:1"))).toEqual([]);
  });

  it("is cold: an operation runs on each subscription, and not before", async () => {
    const store = await makeStore();
    const set = store.set("telegram:1", "sess_a");
    const forget = store.delete("telegram:1");
    await expect(sessionsAsPromises(store).get("telegram:1")).resolves.toBeUndefined();
    await doneOf(set);
    await expect(sessionsAsPromises(store).get("telegram:1")).resolves.toBe("sess_a");
    await doneOf(forget);
    await expect(sessionsAsPromises(store).get("telegram:1")).resolves.toBeUndefined();
    await doneOf(set);
    await doneOf(forget);
    await doneOf(set); // the same Observables, subscribed again: set, deleted, set again
    await expect(sessionsAsPromises(store).get("telegram:1")).resolves.toBe("sess_a");
  });

  it("returns undefined for an unknown key", async () => {
    await expect((await makePromised()).get("telegram:1")).resolves.toBeUndefined();
  });

  it("sets, overwrites and deletes a key without touching others", async () => {
    const store = await makePromised();
    await store.set("telegram:1", "sess_a");
    await store.set("discord:2", "sess_b");
    await expect(store.get("telegram:1")).resolves.toBe("sess_a");
    await store.set("telegram:1", "sess_c");
    await expect(store.get("telegram:1")).resolves.toBe("sess_c");
    await store.delete("telegram:1");
    await expect(store.get("telegram:1")).resolves.toBeUndefined();
    await expect(store.get("discord:2")).resolves.toBe("sess_b");
  });

  it("deletes an unknown key without error", async () => {
    await expect((await makePromised()).delete("nobody")).resolves.toBeUndefined();
  });

  it("sets a deleted key again", async () => {
    const store = await makePromised();
    await store.set("telegram:1", "sess_a");
    await store.delete("telegram:1");
    await store.set("telegram:1", "sess_b");
    await expect(store.get("telegram:1")).resolves.toBe("sess_b");
  });

  it("keeps keys and ids with awkward characters intact and apart", async () => {
    const store = await makePromised();
    const keys = ['telegram:-100123:thread "7"\n好', "a.b", "a=2Eb", "discord:555/777", ""];
    for (const [i, key] of keys.entries()) await store.set(key, `sess/🎉\\x${i}`);
    for (const [i, key] of keys.entries()) await expect(store.get(key)).resolves.toBe(`sess/🎉\\x${i}`);
  });
}
