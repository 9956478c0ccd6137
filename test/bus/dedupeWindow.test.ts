import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { DedupeWindow } from "../../src/bus/dedupeWindow.js";
import { MsgIdIndex } from "../../src/bus/msgIdIndex.js";

/** A clock the test moves. */
class TestClock {
  at = 1_764_582_000_000;
  now(): number {
    return this.at;
  }
}

/** What the window must answer: the Map-and-times model it replaced. */
class ReferenceWindow {
  readonly #entries = new Map<string, { seq: number; at: number }>();
  constructor(
    readonly clock: TestClock,
    readonly windowMs: number,
  ) {}
  claim(msgId: string, seq: number): number | undefined {
    const now = this.clock.now();
    for (const [id, entry] of this.#entries) if (entry.at <= now - this.windowMs) this.#entries.delete(id);
    const found = this.#entries.get(msgId);
    if (found !== undefined) return found.seq;
    this.#entries.set(msgId, { seq, at: now });
    return undefined;
  }
  get size(): number {
    return this.#entries.size;
  }
}

/** An index whose hash puts every msgId in one probe run for the seeds listed as bad. */
class BadlyHashed extends MsgIdIndex {
  constructor(
    seed: number,
    readonly bad: boolean,
  ) {
    super(seed);
  }
  override hash(msgId: string): number {
    return this.bad ? 0x5a5a5a5a : super.hash(msgId);
  }
}

describe("DedupeWindow", () => {
  it("answers a repeat inside the window with the first sequence, and forgets it after", () => {
    const clock = new TestClock();
    const window = new DedupeWindow(clock, 120_000);
    expect(window.claim("telegram:e1", 1)).toBeUndefined();
    clock.at += 119_999;
    expect(window.claim("telegram:e1", 2)).toBe(1);
    clock.at += 1; // exactly 120 s after the first claim: expired, as JetStream's window
    expect(window.claim("telegram:e1", 3)).toBeUndefined();
    expect(window.claim("telegram:e1", 4)).toBe(3);
    expect(window.size).toBe(1);
  });

  it("keeps a msgId built as a rope, and matches it by its characters", () => {
    const window = new DedupeWindow(new TestClock(), 120_000);
    const platform = "telegram";
    const id = ["evt", "42"].join("-");
    expect(window.claim(`${platform}:${id}`, 7)).toBeUndefined();
    expect(window.claim("telegram:evt-42", 8)).toBe(7);
    expect(window.claim("telegram:evt-43", 9)).toBeUndefined();
  });

  it("holds a window of 100,000 msgIds across many chunks, then drains it to nothing", () => {
    const clock = new TestClock();
    const window = new DedupeWindow(clock, 1_000);
    const firsts = Array.from({ length: 100_000 }, (_, i) => window.claim(`telegram:evt-${i}`, i));
    expect(firsts.every((answer) => answer === undefined)).toBe(true);
    const repeats = Array.from({ length: 101 }, (_, k) => window.claim(`telegram:evt-${k * 997}`, -1));
    expect(repeats).toEqual(Array.from({ length: 101 }, (_, k) => k * 997));
    expect(window.size).toBe(100_000);
    clock.at += 1_000;
    expect(window.claim("telegram:after", 0)).toBeUndefined();
    expect(window.size).toBe(1);
    expect(window.claim("telegram:evt-5", 1)).toBeUndefined();
  });

  it("slides for 300,000 claims, its oldest chunks dropped and compacted while newer ones are live", () => {
    const clock = new TestClock();
    const window = new DedupeWindow(clock, 2_000);
    const wrong: number[] = [];
    for (let i = 0; i < 300_000; i++) {
      if (i % 10 === 0) clock.at += 1; // 10 claims a millisecond: 20,000 live at a time
      if (window.claim(`slack:${i}`, i) !== undefined) wrong.push(i);
      // A repeat from 15,000 claims ago (1.5 s: inside the window) and one from 25,000 ago (outside).
      if (i % 1_000 === 999 && i >= 25_000) {
        if (window.claim(`slack:${i - 15_000}`, -1) !== i - 15_000) wrong.push(-i);
        if (window.claim(`slack:${i - 25_000}`, i) !== undefined) wrong.push(-i - 0.5);
        else if (window.claim(`slack:${i - 25_000}`, -1) !== i) wrong.push(-i - 0.25);
      }
    }
    expect(wrong).toEqual([]);
    expect(window.size).toBeGreaterThanOrEqual(20_000);
    expect(window.size).toBeLessThan(20_400);
  });

  // Random claims over a small id space (so repeats are common) and random clock steps (so entries
  // expire alone, in runs, and all at once, mid-chunk and across chunk ends): the same answers as the model.
  test.prop(
    [
      fc.array(fc.record({ id: fc.integer({ min: 0, max: 3_000 }), step: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 3_000 })) }), {
        minLength: 1,
        maxLength: 4_000,
      }),
      fc.integer({ min: 1, max: 2_000 }),
    ],
    { numRuns: 60 },
  )("answers every claim as a Map of msgIds and times would", (claims, windowMs) => {
    const clock = new TestClock();
    const window = new DedupeWindow(clock, windowMs);
    const reference = new ReferenceWindow(clock, windowMs);
    claims.forEach(({ id, step }, seq) => {
      clock.at += step;
      expect(window.claim(`slack:${id}`, seq)).toBe(reference.claim(`slack:${id}`, seq));
    });
    expect(window.size).toBe(reference.size);
  });

  it("rebuilds its index on a fresh seed when hashes bunch up, answering the same throughout", () => {
    const clock = new TestClock();
    const seeds = [11, 12];
    const used: number[] = [];
    const window = new DedupeWindow(clock, 60_000, {
      seed: () => seeds[used.length] ?? 13,
      index: (seed) => {
        used.push(seed);
        return new BadlyHashed(seed, seed === 11);
      },
    });
    for (let i = 0; i < 300; i++) expect(window.claim(`discord:evt-${i}`, i)).toBeUndefined();
    expect(used).toEqual([11, 12]); // one long probe run, one rebuild
    for (let i = 0; i < 300; i++) expect(window.claim(`discord:evt-${i}`, -1)).toBe(i);
    clock.at += 60_000;
    expect(window.claim("discord:evt-0", 1)).toBeUndefined();
    expect(window.size).toBe(1);
  });

  it("stays correct when no seed spreads the hashes (only slower)", () => {
    const clock = new TestClock();
    let seeds = 0;
    const window = new DedupeWindow(clock, 60_000, { seed: () => ++seeds, index: (seed) => new BadlyHashed(seed, true) });
    for (let i = 0; i < 200; i++) expect(window.claim(`line:evt-${i}`, i)).toBeUndefined();
    for (let i = 0; i < 200; i++) expect(window.claim(`line:evt-${i}`, -1)).toBe(i);
    clock.at += 30_000;
    expect(window.claim("line:late", 500)).toBeUndefined();
    clock.at += 30_000; // the first 200 expire, out of one long probe run
    expect(window.claim("line:late", 501)).toBe(500);
    expect(window.claim("line:evt-7", 502)).toBeUndefined();
    expect(window.size).toBe(2);
  });

  it("forgets its newest claim (an append that could not be stored), across chunk edges, and goes on as before", () => {
    const clock = new TestClock();
    const window = new DedupeWindow(clock, 60_000);
    const reference = new ReferenceWindow(clock, 60_000);
    for (let i = 0; i < 3_000; i++) {
      expect(window.claim(`evt-${i}`, i)).toBe(reference.claim(`evt-${i}`, i));
      // Every 1,024th claim opens a chunk of the ring: forgetting it must close that chunk again.
      if (i % 1_024 === 0 || i % 7 === 0) {
        window.forgetNewest();
        expect(window.claim(`evt-${i}`, i + 0.5)).toBeUndefined(); // forgotten: a retry is new
      }
      if (i % 500 === 0) clock.at += 10_000;
    }
    expect(window.claim("evt-2999", -1)).toBe(2999);
    expect(window.claim("evt-7", -1)).toBe(7.5);
    clock.at += 60_000;
    expect(window.claim("evt-2999", 1)).toBeUndefined();
    expect(window.size).toBe(1);
  });

  it("restores msgIds at the times given, lists them newest first for as long as asked, and expires them as claimed ones", () => {
    const clock = new TestClock();
    const window = new DedupeWindow(clock, 60_000);
    window.restore("old", 1, clock.at - 50_000);
    window.restore("new", 2, clock.at);
    const listed: [string, number, number][] = [];
    window.forEachNewest((msgId, at, seq) => listed.push([msgId, at - clock.at, seq]) > 0);
    expect(listed).toEqual([
      ["new", 0, 2],
      ["old", -50_000, 1],
    ]);
    const first: string[] = [];
    window.forEachNewest((msgId) => first.push(msgId) < 1);
    expect(first).toEqual(["new"]);
    expect(window.claim("old", 3)).toBe(1);
    clock.at += 10_000;
    expect(window.claim("old", 4)).toBeUndefined();
    expect(window.claim("new", 5)).toBe(2);
  });
});
