import { JetStreamApiError } from "@nats-io/jetstream";
import { describe, expect, it } from "vitest";
import { isCasConflict } from "../../../src/state/kv/storedRecord.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { natsKvFixture } from "./natsKv.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

describe.skipIf(!natsServerAvailable())("BucketWrites (real nats-server)", () => {
  const nats = natsKvFixture();

  it("creates a key the KV client reads back at the revision it returned, and updates it by that revision", async () => {
    const { kv, writes } = await nats.bucketWithWrites();
    const created = await writes.create("k", bytes("one"));
    expect(await kv.get("k")).toMatchObject({ revision: created, operation: "PUT" });
    expect((await kv.get("k"))?.string()).toBe("one");
    const updated = await writes.update("k", bytes("two"), created);
    expect(updated).toBeGreaterThan(created);
    expect((await kv.get("k"))?.string()).toBe("two");
  });

  it("refuses a create over a live value and an update naming a stale revision, as compare-and-set conflicts", async () => {
    const { kv, writes } = await nats.bucketWithWrites();
    const first = await kv.create("k", "theirs");
    await kv.update("k", "theirs again", first);
    const created = await writes.create("k", bytes("mine")).catch((err: unknown) => err);
    const updated = await writes.update("k", bytes("mine"), first).catch((err: unknown) => err);
    for (const err of [created, updated]) {
      expect(err).toBeInstanceOf(JetStreamApiError);
      expect(isCasConflict(err)).toBe(true);
    }
    expect((await kv.get("k"))?.string()).toBe("theirs again");
  });

  it("creates over a delete or purge marker, naming the marker's revision (as the KV client's create does)", async () => {
    const { kv, writes } = await nats.bucketWithWrites();
    await kv.put("deleted", "old");
    await kv.delete("deleted");
    await kv.put("purged", "old");
    await kv.purge("purged");
    for (const key of ["deleted", "purged"]) {
      const revision = await writes.create(key, bytes("new"));
      expect(await kv.get(key)).toMatchObject({ revision, operation: "PUT" });
      expect((await kv.get(key))?.string()).toBe("new");
    }
  });
});
