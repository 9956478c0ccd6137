import { firstValueFrom, Observable } from "rxjs";
import { describe, expect, it } from "vitest";
import { MemoryRateBuckets, type RateBuckets, type Take, type TakeMode } from "../../operators/delivery/flow/rateBuckets.js";
import { windowOf, type BucketLimit } from "../../operators/delivery/flow/tokenBucket.js";
import { LOCAL_PART, poolOf, portion, ShareFirstRateBuckets, SPLIT_FROM } from "../../src/state/shareFirstRateBuckets.js";

const tenPerSecond: BucketLimit = { messages: 10, perSecs: 1, burst: 10 };
const twentyPerSecond: BucketLimit = { messages: 20, perSecs: 1, burst: 20 };
const thirtyPerSecond: BucketLimit = { messages: 30, perSecs: 1, burst: 30 };

/** A pool in memory that counts how often it was asked. */
function countingPool(): RateBuckets & { asked: number } {
  const memory = new MemoryRateBuckets();
  const pool = {
    asked: 0,
    take: (key: string, limit: BucketLimit, now: number, mode: TakeMode): Observable<Take> => {
      pool.asked += 1;
      return memory.take(key, limit, now, mode);
    },
  };
  return pool;
}

describe("ShareFirstRateBuckets", () => {
  it("takes from the worker's local part first, without asking the pool; then the pool's token now; then says when the first comes again", async () => {
    const pool = countingPool();
    // All the partitions: the local part is half of 20 per second.
    const buckets = new ShareFirstRateBuckets({ pool, share: () => 1 });
    const takes: Take[] = [];
    for (let i = 0; i < 10; i++) takes.push(await firstValueFrom(buckets.take("telegram", twentyPerSecond, 0, "reserve")));
    expect(pool.asked).toBe(0);
    for (let i = 0; i < 10; i++) takes.push(await firstValueFrom(buckets.take("telegram", twentyPerSecond, 0, "reserve")));
    expect(pool.asked).toBe(10);
    expect(takes.every((t) => t.taken && t.at === 0)).toBe(true);
    // Both at 1000 next: the local part's token comes no later than the pool's, so nothing is reserved in the pool.
    expect(await firstValueFrom(buckets.take("telegram", twentyPerSecond, 0, "reserve"))).toEqual({ at: 1000, taken: false });
  });

  it("a person's reply reserves the pool's token when it comes before the local part's", async () => {
    const pool = countingPool();
    const buckets = new ShareFirstRateBuckets({ pool, share: () => 1 });
    for (let i = 0; i < 10; i++) await firstValueFrom(buckets.take("telegram", twentyPerSecond, 0, "reserve"));
    // The pool is still full at 500; the local part's next token is at 1000.
    expect(await firstValueFrom(buckets.take("telegram", twentyPerSecond, 500, "reserve"))).toEqual({ at: 500, taken: true });
  });

  it("a limit under SPLIT_FROM sends is the pool's alone", async () => {
    const pool = countingPool();
    const buckets = new ShareFirstRateBuckets({ pool, share: () => 1 });
    await firstValueFrom(buckets.take("telegram", tenPerSecond, 0, "reserve"));
    expect(pool.asked).toBe(1);
    expect(SPLIT_FROM).toBeGreaterThan(tenPerSecond.messages);
  });

  it("three workers' local parts and the pool never hold more than the limit in any window (30 per second: 4 + 4 + 5 local, 15 pooled)", async () => {
    const memory = new MemoryRateBuckets();
    const shared: RateBuckets = { take: (key, limit, now, mode) => memory.take(key, limit, now, mode) };
    const workers = [5 / 16, 5 / 16, 6 / 16].map((share) => new ShareFirstRateBuckets({ pool: shared, share: () => share }));
    const times: number[] = [];
    for (let now = 0; now < 5000; now += 10) {
      for (const worker of workers) {
        const take = await firstValueFrom(worker.take("telegram", thirtyPerSecond, now, "reserve"));
        if (take.taken) times.push(take.at);
      }
    }
    times.sort((a, b) => a - b);
    let busiest = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while ((times[i] as number) - (times[j] as number) >= 1000) j++;
      busiest = Math.max(busiest, i - j + 1);
    }
    expect(busiest).toBeLessThanOrEqual(30);
    // Not far under it either: 28 of 30, two lost to rounding the local parts.
    expect(busiest).toBeGreaterThanOrEqual(28);
  });

  it("a worker owning no partition yet, or a part under one send, asks the pool for every send", async () => {
    const pool = countingPool();
    const buckets = new ShareFirstRateBuckets({ pool, share: () => 0 });
    await firstValueFrom(buckets.take("telegram", tenPerSecond, 0, "reserve"));
    expect(pool.asked).toBe(1);
  });

  it("portion and poolOf keep the limit's window and add up to at most the limit", () => {
    const limit: BucketLimit = { messages: 30, perSecs: 1, burst: 30 };
    const local = portion(limit, LOCAL_PART * (5 / 16));
    expect(local).toEqual({ messages: 4, perSecs: 1, burst: 4 });
    expect(poolOf(limit)).toEqual({ messages: 15, perSecs: 1, burst: 15 });
    expect(portion(limit, 0.01)).toBeUndefined();
    const bursty: BucketLimit = { messages: 1, perSecs: 1, burst: 5 };
    const part = poolOf(bursty);
    expect(windowOf(part).ms).toBe(windowOf(bursty).ms);
    expect(windowOf(portion({ messages: 20, perSecs: 60, burst: 5 }, 0.5) as BucketLimit).ms).toBeCloseTo(windowOf({ messages: 20, perSecs: 60, burst: 5 }).ms);
  });

  it("a proactive send never takes the local part: it takes a pool token there is now, or none", async () => {
    const pool = countingPool();
    const buckets = new ShareFirstRateBuckets({ pool, share: () => 1 });
    expect(await firstValueFrom(buckets.take("telegram", twentyPerSecond, 0, "now"))).toEqual({ at: 0, taken: true });
    expect(pool.asked).toBe(1);
  });

  it("a share that grew counts from a window later; one that shrank at once", async () => {
    const pool = countingPool();
    let share = 0.5;
    const buckets = new ShareFirstRateBuckets({ pool, share: () => share });
    const localTakes = async (now: number) => {
      const before = pool.asked;
      let local = 0;
      for (let i = 0; i < 20; i++) {
        const take = await firstValueFrom(buckets.take("telegram", twentyPerSecond, now, "reserve"));
        if (take.taken && pool.asked === before + 0) local += 1;
        if (pool.asked > before) break;
      }
      return local;
    };
    // Half the partitions: 5 of 20 local.
    expect(await localTakes(0)).toBe(5);
    share = 1;
    // Took over the rest, noticed at 1050: still 5 until 2050 (the old owner may have spent its part of this window).
    expect(await localTakes(1_050)).toBe(5);
    expect(await localTakes(2_200)).toBe(10);
    share = 0.25;
    expect(await localTakes(3_300)).toBe(2);
  });
});
