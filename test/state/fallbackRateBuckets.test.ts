import { firstValueFrom, Observable, throwError } from "rxjs";
import { describe, expect, it } from "vitest";
import { MemoryRateBuckets, type RateBuckets, type Take } from "../../operators/delivery/flow/rateBuckets.js";
import type { BucketLimit } from "../../operators/delivery/flow/tokenBucket.js";
import { FallbackRateBuckets, shareOf } from "../../src/state/fallbackRateBuckets.js";
import { captureLogs } from "../helpers/logCapture.js";

const tenPerSecond: BucketLimit = { messages: 10, perSecs: 1, burst: 10 };

/** A shared store that fails while `down` says so, and is a memory store otherwise. */
function flakyStore(down: () => boolean): RateBuckets & { asked: number } {
  const memory = new MemoryRateBuckets();
  const store = {
    asked: 0,
    take: (key: string, limit: BucketLimit, now: number, mode: "reserve" | "now"): Observable<Take> => {
      store.asked += 1;
      return down() ? throwError(() => new Error("kv unreachable")) : memory.take(key, limit, now, mode);
    },
  };
  return store;
}

describe("FallbackRateBuckets", () => {
  it("while the shared store fails, takes from a local bucket holding this worker's share; asks the store again after retryMs; logs each change once", async () => {
    let down = true;
    const shared = flakyStore(() => down);
    const { logger, records } = captureLogs();
    const buckets = new FallbackRateBuckets({ shared, share: () => 0.3, logger, retryMs: 5_000 });
    const take = (now: number) => firstValueFrom(buckets.take("telegram", tenPerSecond, now, "reserve"));
    // A third of 10/s: 3 per 1 s window locally.
    const local = [await take(0), await take(0), await take(0), await take(0)];
    expect(local.map((t) => t.at)).toEqual([0, 0, 0, 1000]);
    expect(shared.asked).toBe(1);
    expect(records.filter((r) => r.msg === "shared rate limits unreachable; shaping locally")).toEqual([
      expect.objectContaining({ reason: "rate_store_unreachable", platform: "telegram", share: 0.3, retryMs: 5_000 }),
    ]);
    down = false;
    expect(await take(4_999)).toMatchObject({ taken: true });
    expect(shared.asked).toBe(1);
    expect(await take(5_000)).toEqual({ at: 5_000, taken: true });
    expect(shared.asked).toBe(2);
    expect(records.filter((r) => r.msg === "shared rate limits reachable again")).toHaveLength(1);
  });

  it("shareOf: whole messages, at least one per stretched period, the rate kept", () => {
    expect(shareOf(tenPerSecond, 1)).toBe(tenPerSecond);
    expect(shareOf(tenPerSecond, 0.5)).toEqual({ messages: 5, perSecs: 1, burst: 5 });
    expect(shareOf({ messages: 30, perSecs: 1, burst: 30 }, 1 / 16)).toEqual({ messages: 1, perSecs: 1 / 1.875, burst: 1 });
    const tiny = shareOf({ messages: 1, perSecs: 1, burst: 5 }, 0.25);
    expect(tiny.messages / tiny.perSecs).toBeCloseTo(0.25);
  });

  it("a store that errors is never the caller's error", async () => {
    const { logger } = captureLogs();
    const buckets = new FallbackRateBuckets({ shared: { take: () => throwError(() => new Error("x")) }, share: () => 1, logger });
    await expect(firstValueFrom(buckets.take("telegram", tenPerSecond, 0, "now"))).resolves.toEqual({ at: 0, taken: true });
  });
});
