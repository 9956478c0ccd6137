import { firstValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import type { Take } from "../../../operators/delivery/flow/rateBuckets.js";
import type { BucketLimit } from "../../../operators/delivery/flow/tokenBucket.js";
import { StateStoreError } from "../../../src/state/errors.js";
import { kvKey } from "../../../src/state/kv/kvKey.js";
import { KvRateBuckets } from "../../../src/state/kv/kvRateBuckets.js";
import { natsServerAvailable } from "../../helpers/natsServer.js";
import { natsKvFixture } from "./natsKv.js";

const tenPerSecond: BucketLimit = { messages: 10, perSecs: 1, burst: 10 };
/** A clock standing at 0: takes are decided on the time each asks for. */
const frozen = () => 0;

describe.skipIf(!natsServerAvailable())("KvRateBuckets", () => {
  const nats = natsKvFixture();

  it("three workers taking at once never take more than the limit: 10 per second across them, each token once", async () => {
    const { name } = await nats.bucket();
    const workers = await Promise.all([0, 1, 2].map(async () => new KvRateBuckets(await nats.open(await nats.connect(), name), { clock: frozen })));
    const takes = await Promise.all(
      workers.flatMap((worker) => Array.from({ length: 15 }, () => firstValueFrom(worker.take("telegram", tenPerSecond, 0, "reserve")))),
    );
    expect(takes.every((take) => take.taken)).toBe(true);
    const times = takes.map((take) => take.at).sort((a, b) => a - b);
    // 45 reservations from t = 0: ten in each second, none left over or doubled.
    expect(times).toEqual([...Array(10).fill(0), ...Array(10).fill(1000), ...Array(10).fill(2000), ...Array(10).fill(3000), ...Array(5).fill(4000)]);
  });

  it("through BucketWrites, as openSharedState builds it; one bucket per platform key", async () => {
    const { kv, writes } = await nats.bucketWithWrites();
    const buckets = new KvRateBuckets(kv, { writes, clock: frozen });
    const one: BucketLimit = { messages: 1, perSecs: 1, burst: 1 };
    expect(await firstValueFrom(buckets.take("telegram", one, 0, "reserve"))).toEqual<Take>({ at: 0, taken: true });
    expect(await firstValueFrom(buckets.take("telegram", one, 0, "reserve"))).toEqual<Take>({ at: 1000, taken: true });
    expect(await firstValueFrom(buckets.take("discord", one, 0, "reserve"))).toEqual<Take>({ at: 0, taken: true });
  });

  it("`now` takes only a token there is now, and writes nothing when there is none", async () => {
    const { kv } = await nats.bucket();
    const buckets = new KvRateBuckets(kv, { clock: frozen });
    const one: BucketLimit = { messages: 1, perSecs: 1, burst: 1 };
    expect(await firstValueFrom(buckets.take("telegram", one, 0, "now"))).toEqual<Take>({ at: 0, taken: true });
    const revision = (await kv.get(kvKey("telegram")))?.revision;
    expect(await firstValueFrom(buckets.take("telegram", one, 10, "now"))).toEqual<Take>({ at: 1000, taken: false });
    expect((await kv.get(kvKey("telegram")))?.revision).toBe(revision);
    expect(await firstValueFrom(buckets.take("telegram", one, 1000, "now"))).toEqual<Take>({ at: 1000, taken: true });
  });

  it("a value that is not a bucket state (an older build's) is read as a full bucket and overwritten", async () => {
    const { kv } = await nats.bucket();
    await kv.put(kvKey("telegram"), JSON.stringify({ tokens: "many" }));
    expect(await firstValueFrom(new KvRateBuckets(kv, { clock: frozen }).take("telegram", tenPerSecond, 0, "reserve"))).toEqual<Take>({ at: 0, taken: true });
    expect((await kv.get(kvKey("telegram")))?.json()).toEqual({ tokens: 9, at: 0, recent: [0] });
  });

  it("decides each take on the clock when it is written, not on the time it was asked: a take that waited is not reserved in the past", async () => {
    const { kv } = await nats.bucket();
    let clock = 0;
    const buckets = new KvRateBuckets(kv, { clock: () => clock });
    const one: BucketLimit = { messages: 1, perSecs: 1, burst: 1 };
    expect(await firstValueFrom(buckets.take("telegram", one, 0, "reserve"))).toEqual<Take>({ at: 0, taken: true });
    clock = 5_000;
    expect(await firstValueFrom(buckets.take("telegram", one, 1_000, "reserve"))).toEqual<Take>({ at: 5_000, taken: true });
  });

  it("a closed connection is a StateStoreError with the client's error as cause", async () => {
    const { name } = await nats.bucket();
    const nc = await nats.connect();
    const closed = new KvRateBuckets(await nats.open(nc, name));
    await nc.close();
    const lost = await firstValueFrom(closed.take("discord", tenPerSecond, 0, "reserve")).catch((err: unknown) => err);
    expect(lost).toBeInstanceOf(StateStoreError);
    expect((lost as Error).cause).toBeInstanceOf(Error);
  });
});
