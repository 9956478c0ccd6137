import { describe, expect, it } from "vitest";
import { StateStoreError } from "../../../src/state/errors.js";
import { kvKey } from "../../../src/state/kv/kvKey.js";
import { KvSessionStore, kvSessionKey } from "../../../src/state/kv/kvSessionStore.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { describeSessionStoreContract } from "../contracts/sessionStoreContract.js";
import { sessionsAsPromises } from "../contracts/storePromises.js";
import { natsKvFixture } from "./natsKv.js";

describe.skipIf(!natsServerAvailable())("KvSessionStore", () => {
  const nats = natsKvFixture();

  describe("the SessionStore contract", () => {
    describeSessionStoreContract(async () => new KvSessionStore((await nats.bucket()).kv));
  });

  it("shares ids between workers: what one sets, another gets", async () => {
    const { name } = await nats.bucket();
    const [one, two] = await Promise.all([1, 2].map(async () => sessionsAsPromises(new KvSessionStore(await nats.open(await nats.connect(), name)))));
    await one?.set("telegram:1", "sess_a");
    await expect(two?.get("telegram:1")).resolves.toBe("sess_a");
    await two?.delete("telegram:1");
    await expect(one?.get("telegram:1")).resolves.toBeUndefined();
  });

  it("stores the id as the raw value under v2. and the encoded key (readable with `nats kv get`)", async () => {
    const { kv } = await nats.bucket();
    await sessionsAsPromises(new KvSessionStore(kv)).set("telegram:-100:", "sess_a");
    expect(kvSessionKey("telegram:-100:")).toBe("v2.telegram=3A-100=3A");
    expect((await kv.get("v2.telegram=3A-100=3A"))?.string()).toBe("sess_a");
  });

  describe("a bucket an earlier turnstream wrote (kvKey(\"platform:thread_or_channel\") → id)", () => {
    const legacyBucket = async () => {
      const bucket = await nats.bucket();
      for (const [key, id] of Object.entries({ "telegram:T1": "sess_topic", "discord:123": "sess_channel", "a:b:c": "sess_colon" })) await bucket.kv.put(kvKey(key), id);
      return bucket;
    };

    it("hands a thread's old id to the first channel that asks for that thread, and to no other", async () => {
      const { kv } = await legacyBucket();
      const store = sessionsAsPromises(new KvSessionStore(kv));
      await expect(store.get("telegram:chat-A:T1")).resolves.toBe("sess_topic");
      await expect(store.get("telegram:chat-B:T1")).resolves.toBeUndefined();
      await expect(store.get("telegram:chat-A:T1")).resolves.toBe("sess_topic");
      expect(await kv.get(kvKey("telegram:T1"))).toMatchObject({ operation: "DEL" });
      expect((await kv.get(kvSessionKey("telegram:chat-A:T1")))?.string()).toBe("sess_topic");
    });

    it("hands a channel's old id to the conversation outside a thread, matching an old key with ':' exactly", async () => {
      const { kv } = await legacyBucket();
      const store = sessionsAsPromises(new KvSessionStore(kv));
      await expect(store.get("discord:123:")).resolves.toBe("sess_channel");
      await expect(store.get("a:b:c")).resolves.toBeUndefined(); // (a, b, c): old key a:c
      await expect(store.get("a:x:b%3Ac")).resolves.toBe("sess_colon"); // (a, x, "b:c"): old key a:b:c
    });

    it("gives an old id to one of two workers claiming it for two conversations at once", async () => {
      const { name } = await legacyBucket();
      const workers = await Promise.all([1, 2, 3, 4].map(async () => sessionsAsPromises(new KvSessionStore(await nats.open(await nats.connect(), name)))));
      const got = await Promise.all(workers.map((worker, i) => worker.get(`telegram:chat-${i}:T1`)));
      expect(got.filter((id) => id === "sess_topic")).toHaveLength(1);
      expect(got.filter((id) => id === undefined)).toHaveLength(3);
    });

    it("drops the old counterpart on delete, so /reset before any turn starts afresh", async () => {
      const { kv } = await legacyBucket();
      const store = sessionsAsPromises(new KvSessionStore(kv));
      await store.delete("telegram:chat-A:T1");
      await expect(store.get("telegram:chat-A:T1")).resolves.toBeUndefined();
      await expect(store.get("discord:123:")).resolves.toBe("sess_channel");
    });
  });

  it("rejects with a StateStoreError carrying the client's error when the connection is closed", async () => {
    const nc = await nats.connect();
    const { name } = await nats.bucket();
    const store = sessionsAsPromises(new KvSessionStore(await nats.open(nc, name)));
    await nc.close();
    for (const operation of [store.get("k"), store.set("k", "v"), store.delete("k")]) {
      const error = await operation.catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StateStoreError);
      expect(error).toMatchObject({ store: "sessions", key: "k" });
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
  });
});
