import { describe, expect, it } from "vitest";
import {
  bucketFull,
  departure,
  earliestDeparture,
  heldUntil,
  isBucketState,
  latenessMarginOf,
  MAX_WINDOW,
  takeToken,
  widened,
  windowOf,
  type BucketLimit,
  type BucketState,
} from "../../../../operators/delivery/flow/tokenBucket.js";

/** Departure times of `count` sends all asking at `now` (each after the previous reserved). */
function departures(limit: BucketLimit, count: number, asks: (i: number) => number = () => 0): number[] {
  let state: BucketState | undefined;
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = earliestDeparture(state, limit, asks(i));
    state = takeToken(state, limit, at);
    times.push(at);
  }
  return times;
}

/** The most sends any window of `ms` holds. */
function busiestWindow(times: readonly number[], ms: number): number {
  let most = 0;
  for (let i = 0; i < times.length; i++) {
    let j = i;
    while (j < times.length && (times[j] as number) < (times[i] as number) + ms) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

describe("tokenBucket", () => {
  it("N per S with burst N: N at once, then the next N once the first leave the window — never N + refill in one window", () => {
    const limit: BucketLimit = { messages: 10, perSecs: 1, burst: 10 };
    const times = departures(limit, 25);
    expect(times.slice(0, 10)).toEqual(Array(10).fill(0));
    expect(times.slice(10, 20)).toEqual(Array(10).fill(1000));
    expect(busiestWindow(times, 1000)).toBe(10);
  });

  it("1 per second, burst 1: one a second", () => {
    expect(departures({ messages: 1, perSecs: 1, burst: 1 }, 4)).toEqual([0, 1000, 2000, 3000]);
  });

  it("a burst above the rate lets a paced turn through, and holds the sustained rate: 1/s with burst 5 is at most 5 in any 5 s", () => {
    const limit: BucketLimit = { messages: 1, perSecs: 1, burst: 5 };
    // Four bubbles and an activity message, 400 ms apart: unshaped.
    expect(departures(limit, 5, (i) => i * 400)).toEqual([0, 400, 800, 1200, 1600]);
    const sustained = departures(limit, 40, (i) => i * 100);
    expect(busiestWindow(sustained, 5000)).toBe(5);
    expect((sustained[39] as number) / 1000).toBeGreaterThanOrEqual(35);
  });

  it("a burst below the rate spaces sends by the refill: 20 per minute, burst 5", () => {
    const limit: BucketLimit = { messages: 20, perSecs: 60, burst: 5 };
    const times = departures(limit, 25);
    expect(times.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(times[5]).toBe(3000);
    expect(busiestWindow(times, 60_000)).toBeLessThanOrEqual(20);
  });

  it("refills while quiet, never past burst", () => {
    const limit: BucketLimit = { messages: 2, perSecs: 1, burst: 2 };
    const drained = takeToken(takeToken(undefined, limit, 0), limit, 0);
    expect(earliestDeparture(drained, limit, 0)).toBe(1000);
    expect(earliestDeparture(drained, limit, 10_000)).toBe(10_000);
    const later = takeToken(takeToken(drained, limit, 10_000), limit, 10_000);
    expect(earliestDeparture(later, limit, 10_000)).toBe(11_000);
  });

  it("a window larger than MAX_WINDOW is checked as shorter windows: the state stays bounded and no window holds more than the limit", () => {
    const limit: BucketLimit = { messages: 2000, perSecs: 1, burst: 2000 };
    expect(windowOf(limit)).toEqual({ size: 62, ms: 31.25 });
    let state: BucketState | undefined;
    const times: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const at = earliestDeparture(state, limit, i / 10);
      state = takeToken(state, limit, at);
      times.push(at);
    }
    expect(state?.recent.length).toBeLessThanOrEqual(MAX_WINDOW);
    expect(busiestWindow(times, 1000)).toBeLessThanOrEqual(2000);
    // Slightly under the limit at the edges, not far under it.
    expect(busiestWindow(times, 1000)).toBeGreaterThanOrEqual(1900);
  });

  it("a send through several buckets goes at the latest of their departures and takes a token from each then", () => {
    const chat: BucketLimit = { messages: 1, perSecs: 1, burst: 1 };
    const bot: BucketLimit = { messages: 10, perSecs: 1, burst: 10 };
    const first = departure([{ state: undefined, limit: chat }, { state: undefined, limit: bot }], 0);
    expect(first.at).toBe(0);
    const second = departure([{ state: first.states[0], limit: chat }, { state: first.states[1], limit: bot }], 0);
    expect(second.at).toBe(1000);
    // The first left the window by 1000: only what the window can still count is kept.
    expect(second.states[1]?.recent).toEqual([1000]);
  });

  it("heldUntil: a gateway's retry_after is the refused send's retry, taking its token then; the next send follows at the sustained rate", () => {
    const limit: BucketLimit = { messages: 1, perSecs: 1, burst: 5 };
    const held = heldUntil(takeToken(undefined, limit, 0), limit, 3000);
    expect(held).toEqual({ tokens: 0, at: 3000, recent: [0, 3000] });
    expect(earliestDeparture(held, limit, 100)).toBe(4000);
    // A hold older than a later reservation reserves the retry after it.
    const reserved = takeToken(undefined, limit, 9000);
    expect(heldUntil(reserved, limit, 5000)).toMatchObject({ at: 9000, recent: [9000, 9000] });
  });

  it("bucketFull: only once refilled and its window empty", () => {
    const limit: BucketLimit = { messages: 1, perSecs: 1, burst: 1 };
    const used = takeToken(undefined, limit, 0);
    expect(bucketFull(used, limit, 500)).toBe(false);
    expect(bucketFull(used, limit, 1000)).toBe(true);
  });

  it("isBucketState accepts what takeToken writes and nothing malformed", () => {
    const limit: BucketLimit = { messages: 3, perSecs: 1, burst: 3 };
    expect(isBucketState(takeToken(undefined, limit, 5))).toBe(true);
    for (const bad of [null, 1, "x", {}, { tokens: 1, at: 0 }, { tokens: "1", at: 0, recent: [] }, { tokens: 1, at: 0, recent: ["a"] }, { tokens: Infinity, at: 0, recent: [] }, { tokens: 1, at: 0, recent: Array(MAX_WINDOW + 1).fill(0) }]) {
      expect(isBucketState(bad)).toBe(false);
    }
  });

  it("widened: the window longer by the margin, the same sends in it; the margin is 25 ms or a tenth of a short window", () => {
    const tenPerSecond: BucketLimit = { messages: 10, perSecs: 1, burst: 10 };
    expect(latenessMarginOf(tenPerSecond)).toBe(25);
    expect(latenessMarginOf({ messages: 2000, perSecs: 1, burst: 2000 })).toBeCloseTo(3.125);
    const wide = widened(tenPerSecond, 50);
    expect(windowOf(wide)).toEqual({ size: 10, ms: 1050 });
    // Sends each leaving up to 25 ms after their token's time still never put 10 in a real second.
    const times = departures(wide, 40).map((at, i) => at + (i % 2 === 0 ? 25 : 0));
    expect(busiestWindow(times, 1000)).toBeLessThanOrEqual(10);
  });
});
