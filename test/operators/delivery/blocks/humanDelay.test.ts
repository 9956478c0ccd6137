import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { humanDelayRange, humanGap, type HumanDelay } from "../../../../operators/delivery/blocks/humanDelay.js";

/** A `randomInt` that returns `values` in turn and records each bound it was asked for. */
function fixedRandom(...values: number[]): { randomInt: (bound: number) => number; bounds: number[] } {
  const bounds: number[] = [];
  let next = 0;
  return {
    randomInt: (bound) => {
      bounds.push(bound);
      const value = values[next++ % values.length];
      if (value === undefined) throw new Error("fixedRandom needs at least one value");
      return value;
    },
    bounds,
  };
}

const natural: HumanDelay = { mode: "natural" };

describe("humanDelayRange", () => {
  it("off has no range", () => {
    expect(humanDelayRange({ mode: "off" })).toBeUndefined();
  });

  it("natural is [800, 2500]", () => {
    expect(humanDelayRange(natural)).toEqual({ minMs: 800, maxMs: 2500 });
  });

  it("custom defaults each bound to natural's", () => {
    expect(humanDelayRange({ mode: "custom" })).toEqual({ minMs: 800, maxMs: 2500 });
    expect(humanDelayRange({ mode: "custom", minMs: 100 })).toEqual({ minMs: 100, maxMs: 2500 });
    expect(humanDelayRange({ mode: "custom", maxMs: 1000 })).toEqual({ minMs: 800, maxMs: 1000 });
    expect(humanDelayRange({ mode: "custom", minMs: 0, maxMs: 0 })).toEqual({ minMs: 0, maxMs: 0 });
  });

  it("custom with max at or below min is exactly min", () => {
    expect(humanDelayRange({ mode: "custom", minMs: 3000, maxMs: 1000 })).toEqual({ minMs: 3000, maxMs: 3000 });
    expect(humanDelayRange({ mode: "custom", minMs: 100, maxMs: 100 })).toEqual({ minMs: 100, maxMs: 100 });
    // The default max (2500) is below a min of 3000.
    expect(humanDelayRange({ mode: "custom", minMs: 3000 })).toEqual({ minMs: 3000, maxMs: 3000 });
  });
});

describe("humanGap", () => {
  it("natural: a draw of 0 waits 800 ms", () => {
    const { randomInt, bounds } = fixedRandom(0);
    expect(humanGap(natural, randomInt)(1)).toBe(800);
    expect(bounds).toEqual([1701]);
  });

  it("natural: the highest draw (1700 of 1701) waits 2500 ms — the upper bound is inclusive", () => {
    const { randomInt, bounds } = fixedRandom(1700);
    expect(humanGap(natural, randomInt)(1)).toBe(2500);
    expect(bounds).toEqual([1701]);
  });

  it("custom {100, 100}: always 100 ms, and randomInt is never called", () => {
    const { randomInt, bounds } = fixedRandom(7);
    const gap = humanGap({ mode: "custom", minMs: 100, maxMs: 100 }, randomInt);
    expect([1, 2, 3, 10].map(gap)).toEqual([100, 100, 100, 100]);
    expect(bounds).toEqual([]);
  });

  it("custom with max below min: always min, without a draw", () => {
    const { randomInt, bounds } = fixedRandom(7);
    const gap = humanGap({ mode: "custom", minMs: 1200, maxMs: 300 }, randomInt);
    expect([1, 2].map(gap)).toEqual([1200, 1200]);
    expect(bounds).toEqual([]);
  });

  it("custom draws over its own range: [200, 300] asks for 101 values", () => {
    const { randomInt, bounds } = fixedRandom(0, 100, 42);
    const gap = humanGap({ mode: "custom", minMs: 200, maxMs: 300 }, randomInt);
    expect([1, 2, 3].map(gap)).toEqual([200, 300, 242]);
    expect(bounds).toEqual([101, 101, 101]);
  });

  it("off: always 0, without a draw", () => {
    const { randomInt, bounds } = fixedRandom(7);
    const gap = humanGap({ mode: "off" }, randomInt);
    expect([0, 1, 2, 50].map(gap)).toEqual([0, 0, 0, 0]);
    expect(bounds).toEqual([]);
  });

  it("index 0 waits 0 in every mode, without a draw", () => {
    const settings: HumanDelay[] = [{ mode: "off" }, natural, { mode: "custom" }, { mode: "custom", minMs: 500, maxMs: 500 }, { mode: "custom", minMs: 3000, maxMs: 10 }];
    for (const setting of settings) {
      const { randomInt, bounds } = fixedRandom(7);
      expect(humanGap(setting, randomInt)(0)).toBe(0);
      expect(bounds).toEqual([]);
    }
  });

  it("§6.3 vector: natural, 3 blocks — gaps 0, d1, d2 with d1 and d2 in [800, 2500], one draw each", () => {
    const { randomInt, bounds } = fixedRandom(523, 1111);
    const gap = humanGap(natural, randomInt);
    expect([0, 1, 2].map(gap)).toEqual([0, 1323, 1911]);
    expect(bounds).toEqual([1701, 1701]);
  });

  test.prop([fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: 20 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })])(
    "every later gap lies in the range, whatever randomInt draws within its bound",
    (minMs, maxMs, index, fraction) => {
      const setting: HumanDelay = { mode: "custom", minMs, maxMs };
      const range = humanDelayRange(setting);
      const gap = humanGap(setting, (bound) => Math.floor(fraction * bound))(index);
      expect(Number.isInteger(gap)).toBe(true);
      expect(gap).toBeGreaterThanOrEqual(range?.minMs ?? Number.NaN);
      expect(gap).toBeLessThanOrEqual(range?.maxMs ?? Number.NaN);
    },
  );
});
