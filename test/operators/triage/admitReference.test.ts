import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { admit } from "../../../operators/triage/admit.js";
import { idHash } from "../../../operators/triage/idHash.js";
import { MAX_SEEN, packSeen, unpackSeen } from "../../../operators/triage/seenIds.js";
import type { TriageState } from "../../../operators/triage/triageState.js";
import { DUPLICATE } from "../../../operators/triage/triageVerdict.js";
import { at, enabled, SECOND } from "./conversations.js";

// `admit`'s dedupe step as it was before the window was kept decoded (O(remembered ids) per
// decision): the reference the incremental one must agree with, decision for decision.
function referenceDedupe(seenPacked: string | undefined, eventId: string, windowSecs: number, nowMs: number): { duplicate: boolean; seen: string | undefined } {
  const nowSec = Math.floor(nowMs / 1000);
  const seen = (unpackSeen(seenPacked) ?? []).filter((entry) => entry.atSec >= nowSec - windowSecs);
  const hash = eventId === "" ? undefined : idHash(eventId);
  if (hash !== undefined && seen.some((entry) => entry.hash === hash)) return { duplicate: true, seen: packSeen(seen) };
  if (hash !== undefined) seen.push({ hash, atSec: nowSec });
  return { duplicate: false, seen: packSeen(seen.slice(-MAX_SEEN)) };
}

const t = at("2026-08-25T12:00:00Z");

interface Step {
  readonly id: string;
  /** Seconds after the previous event; negative: the clock stepped back. */
  readonly dtMs: number;
  /** Decide on the state this many decisions back instead of the latest (a re-read after a conflict). */
  readonly back: number;
}

/** Runs `steps` through `admit` and checks every decision against the reference. */
function agree(steps: readonly Step[], windowSecs: number): void {
  const cfg = enabled({ dedupeWindowSecs: windowSecs, cooldownSecs: 30, dailyCap: 0 });
  const history: (TriageState | undefined)[] = [undefined];
  let now = t;
  for (const step of steps) {
    now += step.dtMs;
    const before = history[Math.max(0, history.length - 1 - step.back)];
    const expected = referenceDedupe(before?.seen, step.id, windowSecs, now);
    const { verdict, state } = admit(before, step.id, cfg, now);
    expect(verdict === DUPLICATE, `${step.id} at ${now}`).toBe(expected.duplicate);
    expect(unpackSeen(state.seen)).toEqual(unpackSeen(expected.seen));
    // An unchanged window is the same string (no write); a changed one is a different string.
    expect(state.seen === before?.seen).toBe(expected.seen === (before?.seen === undefined ? undefined : packSeen(unpackSeen(before.seen) ?? [])));
    history.push(state);
  }
}

describe("admit's dedupe agrees with the O(n) reference", () => {
  const step = fc.record({
    id: fc.constantFrom("", "e1", "e2", "e3", "e4", "e5", "e6", "gmail-thread-18f2c0000"),
    dtMs: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: -90_000, max: 200_000 })),
    back: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 3 })),
  });

  test.prop([fc.array(step, { maxLength: 80 }), fc.constantFrom(1, 30, 60, 3600)], { numRuns: 300 })("any ids, gaps, backwards clocks and re-reads", (steps, windowSecs) => {
    agree(steps, windowSecs);
  });

  // Past 64 ids the window stays decoded between decisions (seenWindow.ts SMALL_WINDOW).
  test.prop([fc.array(fc.integer({ min: -3_000, max: 4_000 }), { minLength: 80, maxLength: 220 }), fc.constantFrom(60, 3600)], { numRuns: 40 })(
    "many distinct ids (the decoded, cached window) with a jittery clock",
    (gaps, windowSecs) => {
      agree(
        gaps.map((dtMs, i) => ({ id: `evt-${i % 150}`, dtMs, back: i % 17 === 0 ? 1 : 0 })),
        windowSecs,
      );
    },
  );

  it(`past the cap of ${MAX_SEEN}, including a clock step back while it is full`, () => {
    const steps: Step[] = Array.from({ length: MAX_SEEN + 300 }, (_, i) => ({ id: `gmail-thread-${i.toString(16)}`, dtMs: i === MAX_SEEN + 100 ? -20 * SECOND : 700, back: 0 }));
    agree(steps, 3600);
  });
});
