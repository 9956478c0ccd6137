import { describe, expect, it } from "vitest";
import { StateStoreError } from "../../../src/state/errors.js";
import { kvKey } from "../../../src/state/kv/kvKey.js";
import { KvSessionStore } from "../../../src/state/kv/kvSessionStore.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { describeSessionStoreContract } from "../contracts/sessionStoreContract.js";
import { natsKvFixture } from "./natsKv.js";

describe.skipIf(!natsServerAvailable())("KvSessionStore", () => {
  const nats = natsKvFixture();

  describe("the SessionStore contract", () => {
    describeSessionStoreContract(async () => new KvSessionStore((await nats.bucket()).kv));
  });

  it("shares ids between workers: what one sets, another gets", async () => {
    const { name } = await nats.bucket();
    const [one, two] = await Promise.all([1, 2].map(async () => new KvSessionStore(await nats.open(await nats.connect(), name))));
    await one?.set("telegram:1", "sess_a");
    await expect(two?.get("telegram:1")).resolves.toBe("sess_a");
    await two?.delete("telegram:1");
    await expect(one?.get("telegram:1")).resolves.toBeUndefined();
  });

  it("stores the id as the raw value under the encoded key (readable with `nats kv get`)", async () => {
    const { kv } = await nats.bucket();
    await new KvSessionStore(kv).set("telegram:-100", "sess_a");
    expect((await kv.get(kvKey("telegram:-100")))?.string()).toBe("sess_a");
  });

  it("rejects with a StateStoreError carrying the client's error when the connection is closed", async () => {
    const nc = await nats.connect();
    const { name } = await nats.bucket();
    const store = new KvSessionStore(await nats.open(nc, name));
    await nc.close();
    for (const operation of [store.get("k"), store.set("k", "v"), store.delete("k")]) {
      const error = await operation.catch((err: unknown) => err);
      expect(error).toBeInstanceOf(StateStoreError);
      expect(error).toMatchObject({ store: "sessions", key: "k" });
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
  });
});
