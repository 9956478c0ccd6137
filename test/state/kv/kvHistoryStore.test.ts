import { describe, expect, it } from "vitest";
import { lastValueFrom } from "rxjs";
import type { HistoryEntry } from "../../../operators/ingress/groupHistory.js";
import { KvHistoryStore } from "../../../src/state/kv/kvHistoryStore.js";
import { kvKey } from "../../../src/state/kv/kvKey.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { describeHistoryStoreContract } from "../contracts/historyStoreContract.js";
import { natsKvFixture } from "./natsKv.js";

const entry = (id: string): HistoryEntry => ({ messageId: id, sender: "ana", text: `text ${id}` });
const done = (operation: import("rxjs").Observable<never>) => lastValueFrom(operation, { defaultValue: undefined });

describe.skipIf(!natsServerAvailable())("KvHistoryStore", () => {
  const nats = natsKvFixture();

  describe("the HistoryStore contract", () => {
    describeHistoryStoreContract(async () => new KvHistoryStore((await nats.bucket()).kv));
  });

  describe("the HistoryStore contract, writing through BucketWrites (as openSharedState builds it)", () => {
    describeHistoryStoreContract(async () => {
      const { kv, writes } = await nats.bucketWithWrites();
      return new KvHistoryStore(kv, { writes });
    });
  });

  it("keeps one { entries } record per conversation and deletes it once emptied", async () => {
    const { kv } = await nats.bucket();
    const store = new KvHistoryStore(kv);
    await done(store.append("telegram:g1", entry("1"), 5));
    expect((await kv.get(kvKey("telegram:g1")))?.json()).toEqual({ entries: [entry("1")] });
    await done(store.remove("telegram:g1", [entry("1")]));
    expect((await kv.get(kvKey("telegram:g1")))?.operation).not.toBe("PUT");
  });

  it("loses no entry when several workers append to one conversation at once", async () => {
    const { name } = await nats.bucket();
    const workers = await Promise.all([1, 2, 3].map(async () => new KvHistoryStore(await nats.open(await nats.connect(), name))));
    // Each worker appends one conversation's messages in order (as GroupHistory does), the workers at once.
    await Promise.all(
      workers.map(async (worker, w) => {
        for (const i of [0, 1, 2, 3]) await done(worker.append("telegram:g1", entry(`${w}-${i}`), 100));
      }),
    );
    const kept = await lastValueFrom(workers[0]!.read("telegram:g1"));
    expect(kept.map((e) => e.messageId).sort()).toEqual(["0-0", "0-1", "0-2", "0-3", "1-0", "1-1", "1-2", "1-3", "2-0", "2-1", "2-2", "2-3"]);
  });

  it("rejects with a StateStoreError when a stored record has an unknown shape", async () => {
    const { kv } = await nats.bucket();
    await kv.put(kvKey("telegram:g1"), JSON.stringify({ entries: "nope" }));
    const store = new KvHistoryStore(kv);
    await expect(lastValueFrom(store.read("telegram:g1"))).rejects.toMatchObject({ name: "StateStoreError", store: "history", operation: "read", key: "telegram:g1" });
    await expect(done(store.append("telegram:g1", entry("1"), 5))).rejects.toMatchObject({ name: "StateStoreError", store: "history", operation: "append" });
  });
});
