import { describe, expect, it } from "vitest";
import { MemoryRateBuckets, takeFrom } from "../../../../operators/delivery/flow/rateBuckets.js";
import type { BucketLimit } from "../../../../operators/delivery/flow/tokenBucket.js";

const perSecond: BucketLimit = { messages: 1, perSecs: 1, burst: 1 };

describe("takeFrom", () => {
  it("reserve takes the next token however far ahead; now takes nothing when none is free, and says when to ask again", () => {
    const first = takeFrom(undefined, perSecond, 0, "reserve");
    expect(first.take).toEqual({ at: 0, taken: true });
    expect(takeFrom(first.state, perSecond, 200, "reserve").take).toEqual({ at: 1000, taken: true });
    const refused = takeFrom(first.state, perSecond, 200, "now");
    expect(refused.take).toEqual({ at: 1000, taken: false });
    expect(refused.state).toBe(first.state);
  });
});

describe("MemoryRateBuckets", () => {
  it("answers take and takeNow alike, from one bucket per key", () => {
    const buckets = new MemoryRateBuckets();
    const answers: unknown[] = [];
    buckets.take("telegram", perSecond, 0, "reserve").subscribe((take) => answers.push(take));
    expect(answers).toEqual([{ at: 0, taken: true }]);
    expect(buckets.takeNow("telegram", perSecond, 0, "reserve")).toEqual({ at: 1000, taken: true });
    expect(buckets.takeNow("discord", perSecond, 0, "now")).toEqual({ at: 0, taken: true });
  });

  it("past maxKeys, forgets buckets as good as new and keeps busy ones, so every limit still holds", () => {
    const buckets = new MemoryRateBuckets({ maxKeys: 2 });
    buckets.takeNow("a", perSecond, 0, "reserve");
    buckets.takeNow("b", perSecond, 0, "reserve");
    // c finds a and b just used: both kept.
    buckets.takeNow("c", perSecond, 0, "reserve");
    expect(buckets.takeNow("a", perSecond, 500, "reserve")).toEqual({ at: 1000, taken: true });
    // By 5000 every bucket is as good as new: forgotten as d and e come, and a forgotten bucket is a full one.
    buckets.takeNow("d", perSecond, 5000, "reserve");
    buckets.takeNow("e", perSecond, 5000, "reserve");
    expect(buckets.takeNow("a", perSecond, 5000, "now")).toEqual({ at: 5000, taken: true });
    expect(buckets.takeNow("a", perSecond, 5000, "now")).toEqual({ at: 6000, taken: false });
  });
});
