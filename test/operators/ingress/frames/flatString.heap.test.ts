import { randomUUID } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { flatString } from "../../../../operators/ingress/frames/flatString.js";
import { inboundDedupeKey, InboundDedupe } from "../../../../operators/ingress/inboundDedupe.js";
import { turnMsgId } from "../../../../src/broker/queueEvent.js";
import { DedupeWindow } from "../../../../src/bus/dedupeWindow.js";
import { AnsweredSends } from "../../../../src/edge/answeredSends.js";
import { KnownRecords } from "../../../../src/state/kv/storedRecord.js";
import { kvKey } from "../../../../src/state/kv/kvKey.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * Heap bytes per entry that `fill(count)` leaves reachable (through what it resolves to), after full
 * collections, typed arrays' buffers off the heap included: the least of three readings, since whatever else the worker allocates meanwhile (its
 * RPC with the runner, another suite's leftovers) only ever adds to one.
 */
async function heapPerEntry(count: number, fill: (count: number) => unknown): Promise<number> {
  let least = Number.POSITIVE_INFINITY;
  for (let reading = 0; reading < 3; reading++) {
    gc();
    gc();
    const before = heapAndBuffers();
    let kept = await fill(count);
    await new Promise((resolve) => setImmediate(resolve)); // settled sends become their replies
    gc();
    gc();
    const after = heapAndBuffers();
    expect(kept).toBeDefined(); // holds the table until after the reading
    kept = undefined;
    least = Math.min(least, (after - before) / count);
  }
  return least;
}

function heapAndBuffers(): number {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

const event = (i: number) => ({
  platform: "telegram",
  event_id: `evt-soak1234-${i}`,
  channel: { id: `chat-${i % 100}`, type: "dm" as const, thread_id: null },
  message_id: `msg-soak1234-${i}`,
});

describe("flatString", () => {
  it("is equal to its input, code unit for code unit", () => {
    let built = "";
    for (const char of "ü€😀-evt-soak-123456789") built += char;
    for (const value of ["", "a", "😀", "\ud83d" + "x".repeat(20) + "\ude00", built, randomUUID(), JSON.stringify(["a", "b\u0000", "é"])]) {
      expect(flatString(value)).toBe(value);
    }
  });

  it("a kept randomUUID() id costs its characters, not a rope of its pieces", async () => {
    // A flat 36-character string is 56 B (~70 with the array's slot); the rope randomUUID() returns ~490 B,
    // so the bound sits well between the two (a full suite's worker reads ~100 B for the flat one).
    expect(await heapPerEntry(10_000, (n) => Array.from({ length: n }, () => flatString(randomUUID())))).toBeLessThan(200);
  });
});

// The broker's bounded tables (the soak benchmark's heap fills them in its first minutes): what one
// entry holds once the table is full, measured with the keys the broker really builds.
describe("bounded tables keep each key flat", () => {
  it("AnsweredSends: a settled answer under a randomUUID() send id", async () => {
    const perEntry = await heapPerEntry(10_000, (n) => {
      const answers = new AnsweredSends(n);
      for (let i = 0; i < n; i++) void answers.answer(randomUUID(), () => Promise.resolve({ ok: true, messageId: `tg-${i}` }));
      return answers;
    });
    expect(perEntry).toBeLessThan(250); // ~170; ~590 with the id's rope
  });

  it("DedupeWindow: a turn's msgId", async () => {
    const perEntry = await heapPerEntry(10_000, (n) => {
      const window = new DedupeWindow({ now: () => 1_764_582_000_000 }, 120_000);
      for (let i = 0; i < n; i++) window.claim(turnMsgId(event(i)), i);
      return window;
    });
    expect(perEntry).toBeLessThan(250); // ~145 (~100 on the heap, the rest its typed arrays); ~365 with the msgId's rope
  });

  it("InboundDedupe: a committed message key", async () => {
    const perEntry = await heapPerEntry(10_000, (n) => {
      const dedupe = new InboundDedupe({ ttlMs: 1_200_000, max: n });
      for (let i = 0; i < n; i++) {
        const key = inboundDedupeKey(event(i)) as string;
        dedupe.claim(key, 1_764_582_000_000 + i, `telegram:evt-${i}`);
        dedupe.commit(key, 1_764_582_000_000 + i);
      }
      return dedupe;
    });
    expect(perEntry).toBeLessThan(250); // ~225; ~270 with JSON.stringify's rope
  });

  it("KnownRecords: a KV key's last write", async () => {
    const perEntry = await heapPerEntry(10_000, (n) => {
      const known = new KnownRecords<{ readonly n: number }>(n);
      for (let i = 0; i < n; i++) known.set(kvKey(`telegram:evt-soak1234-${i}`), { value: { n: i }, revision: i + 1 });
      return known;
    });
    expect(perEntry).toBeLessThan(250); // ~170; ~660 with kvKey's rope
  });
});
