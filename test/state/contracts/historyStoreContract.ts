import { expect, it } from "vitest";
import type { HistoryEntry } from "../../../operators/ingress/prompt/groupHistory.js";
import type { HistoryStore } from "../../../src/state/historyStore.js";
import { doneOf, emitted, valueOf } from "./storePromises.js";

const KEY = "telegram:group-1";
const entry = (id: string, text = `message ${id}`): HistoryEntry => ({ messageId: id, sender: `user ${id}`, text });

/**
 * The contract every HistoryStore keeps; call inside a `describe`. `makeStore` gives an empty store
 * whose byte budget is `maxBytes`.
 */
export function describeHistoryStoreContract(makeStore: () => HistoryStore | Promise<HistoryStore>, maxBytes: number): void {
  it("reads nothing for a conversation it never kept; append emits what it dropped once, remove nothing", async () => {
    const store = await makeStore();
    expect(await emitted(store.read(KEY))).toEqual([[]]);
    expect(await emitted(store.append(KEY, entry("1"), 10))).toEqual([{ dropped: 0, bytes: expect.any(Number), budget: maxBytes }]);
    expect(await emitted(store.remove(KEY, [entry("1")]))).toEqual([]);
  });

  it("keeps entries oldest first, at most the limit, and a message id only once", async () => {
    const store = await makeStore();
    for (const id of ["1", "2", "2", "3", "4"]) await valueOf(store.append(KEY, entry(id), 3));
    expect((await valueOf(store.read(KEY))).map((kept) => kept.messageId)).toEqual(["2", "3", "4"]);
    expect(await valueOf(store.read("telegram:group-2"))).toEqual([]);
  });

  it("keeps a record within its byte budget, dropping the oldest first and saying how many", async () => {
    const store = await makeStore();
    // Each entry is a fifth of the budget and then some: four fit, the fifth pushes out the first.
    const text = "é".repeat(Math.ceil(maxBytes / 10));
    const kept = [];
    for (const id of ["1", "2", "3", "4"]) kept.push(await valueOf(store.append(KEY, entry(id, text), 100)));
    expect(kept.map((k) => k.dropped)).toEqual([0, 0, 0, 0]);
    const fifth = await valueOf(store.append(KEY, entry("5", text), 100));
    expect(fifth.dropped).toBe(1);
    expect(fifth.bytes).toBeLessThanOrEqual(maxBytes);
    const entries = await valueOf(store.read(KEY));
    expect(entries.map((e) => e.messageId)).toEqual(["2", "3", "4", "5"]);
    expect(Buffer.byteLength(JSON.stringify({ entries }))).toBeLessThanOrEqual(maxBytes);
  });

  it("a message that alone is over the budget is not kept, and pushes nothing out", async () => {
    const store = await makeStore();
    await valueOf(store.append(KEY, entry("1"), 10));
    const huge = await valueOf(store.append(KEY, { messageId: "x".repeat(maxBytes), sender: "s", text: "t" }, 10));
    expect(huge.dropped).toBe(1);
    expect((await valueOf(store.read(KEY))).map((e) => e.messageId)).toEqual(["1"]);
  });

  it("forgets what a turn packed and keeps what arrived since", async () => {
    const store = await makeStore();
    await valueOf(store.append(KEY, entry("1"), 10));
    await valueOf(store.append(KEY, entry("2"), 10));
    const packed = await valueOf(store.read(KEY));
    await valueOf(store.append(KEY, entry("3"), 10));
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
    await valueOf(append);
    expect(await valueOf(store.read(KEY))).toEqual([entry("1")]);
  });
}
