import { expect, it } from "vitest";
import type { HistoryEntry } from "../../../operators/ingress/groupHistory.js";
import type { HistoryStore } from "../../../src/state/historyStore.js";
import { doneOf, emitted, valueOf } from "./storePromises.js";

const KEY = "telegram:group-1";
const entry = (id: string): HistoryEntry => ({ messageId: id, sender: `user ${id}`, text: `message ${id}` });

/** The contract every HistoryStore keeps; call inside a `describe`. `makeStore` gives an empty store. */
export function describeHistoryStoreContract(makeStore: () => HistoryStore | Promise<HistoryStore>): void {
  it("reads nothing for a conversation it never kept, and completes append and remove without a value", async () => {
    const store = await makeStore();
    expect(await emitted(store.read(KEY))).toEqual([[]]);
    expect(await emitted(store.append(KEY, entry("1"), 10))).toEqual([]);
    expect(await emitted(store.remove(KEY, [entry("1")]))).toEqual([]);
  });

  it("keeps entries oldest first, at most the limit, and a message id only once", async () => {
    const store = await makeStore();
    for (const id of ["1", "2", "2", "3", "4"]) await doneOf(store.append(KEY, entry(id), 3));
    expect((await valueOf(store.read(KEY))).map((kept) => kept.messageId)).toEqual(["2", "3", "4"]);
    expect(await valueOf(store.read("telegram:group-2"))).toEqual([]);
  });

  it("forgets what a turn packed and keeps what arrived since", async () => {
    const store = await makeStore();
    await doneOf(store.append(KEY, entry("1"), 10));
    await doneOf(store.append(KEY, entry("2"), 10));
    const packed = await valueOf(store.read(KEY));
    await doneOf(store.append(KEY, entry("3"), 10));
    await doneOf(store.remove(KEY, packed));
    expect(await valueOf(store.read(KEY))).toEqual([entry("3")]);
    await doneOf(store.remove(KEY, [entry("3")]));
    expect(await valueOf(store.read(KEY))).toEqual([]);
    await doneOf(store.remove(KEY, [entry("3")])); // nothing left: still fine
  });

  it("is cold: an operation runs on each subscription, and not before", async () => {
    const store = await makeStore();
    const append = store.append(KEY, entry("1"), 10);
    expect(await valueOf(store.read(KEY))).toEqual([]);
    await doneOf(append);
    expect(await valueOf(store.read(KEY))).toEqual([entry("1")]);
  });
}
