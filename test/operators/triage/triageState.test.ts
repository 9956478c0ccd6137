import { describe, expect, it } from "vitest";
import { admit } from "../../../operators/triage/admit.js";
import { MAX_SEEN, unpackSeen } from "../../../operators/triage/seenIds.js";
import { EMPTY_TRIAGE_STATE, isTriageState, lastActivityMs, sameTriageState, type TriageState } from "../../../operators/triage/triageState.js";
import { DUPLICATE } from "../../../operators/triage/triageVerdict.js";
import { at, enabled, SECOND } from "./conversations.js";

const t = at("2026-08-25T12:00:00Z");
const bytes = (state: TriageState) => Buffer.byteLength(JSON.stringify(state), "utf8");
/** Realistic gateway ids: `gmail-thread-18f2c0000`, `gmail-thread-18f2c0001`, … */
const gmailId = (i: number) => `gmail-thread-${(0x18f2c0000 + i).toString(16)}`;

/** The state after `n` proactive events spread evenly over `spanSecs`, every one remembered. */
function afterEvents(n: number, spanSecs: number, windowSecs: number): TriageState {
  const cfg = enabled({ dedupeWindowSecs: windowSecs, cooldownSecs: 900, dailyCap: 8, timezone: "Europe/Berlin" });
  let state: TriageState | undefined;
  for (let i = 0; i < n; i++) state = admit(state, gmailId(i), cfg, t + Math.floor((i * spanSecs * SECOND) / n)).state;
  return state as TriageState;
}

describe("TriageState: small enough to keep per conversation in shared state", () => {
  it("100 ids of realistic length in the default one-hour window fit in 1 KB of JSON", () => {
    expect(gmailId(0)).toBe("gmail-thread-18f2c0000");
    const state = afterEvents(100, 3599, 3600);
    expect(unpackSeen(state.seen)).toHaveLength(100);
    expect(state).toMatchObject({ count: 4, day: "2026-08-25" }); // a wake every 900 s
    expect(bytes(state)).toBeLessThanOrEqual(1024);
  });

  it("100 ids across a one-day window still fit in 1 KB", () => {
    const state = afterEvents(100, 86_399, 86_400);
    expect(unpackSeen(state.seen)).toHaveLength(100);
    expect(bytes(state)).toBeLessThanOrEqual(1024);
  });

  it("every remembered id is still recognised after packing", () => {
    const cfg = enabled({ dedupeWindowSecs: 3600 });
    const state = afterEvents(100, 3599, 3600);
    for (let i = 0; i < 100; i++) expect(admit(state, gmailId(i), cfg, t + 3599 * SECOND).verdict, gmailId(i)).toEqual(DUPLICATE);
  });

  it(`keeps at most ${MAX_SEEN} ids, dropping the oldest`, () => {
    const state = afterEvents(MAX_SEEN + 5, 60, 3600);
    expect(unpackSeen(state.seen)).toHaveLength(MAX_SEEN);
    const cfg = enabled({ dedupeWindowSecs: 3600 });
    expect(admit(state, gmailId(4), cfg, t + 60 * SECOND).verdict.decision).toBe("wake");
    expect(admit(state, gmailId(5), cfg, t + 60 * SECOND).verdict).toEqual(DUPLICATE);
    expect(bytes(state)).toBeLessThan(10 * 1024);
  });

  it("round-trips through JSON unchanged", () => {
    const state = afterEvents(10, 600, 3600);
    const copy = JSON.parse(JSON.stringify(state)) as unknown;
    expect(isTriageState(copy)).toBe(true);
    expect(sameTriageState(copy as TriageState, state)).toBe(true);
  });
});

describe("lastActivityMs", () => {
  it("is the later of the last wake and the newest remembered id", () => {
    expect(lastActivityMs({ count: 1, lastWakeMs: t })).toBe(t);
    const seenLater = admit({ count: 1, lastWakeMs: t }, "e1", enabled({ dedupeWindowSecs: 60, cooldownSecs: 900 }), t + 10_500).state;
    expect(lastActivityMs(seenLater)).toBe(t + 10 * SECOND); // whole seconds
    expect(lastActivityMs({ count: 1, lastWakeMs: t + 20 * SECOND, seen: seenLater.seen })).toBe(t + 20 * SECOND);
  });

  it("is undefined for a conversation with neither", () => {
    expect(lastActivityMs(EMPTY_TRIAGE_STATE)).toBeUndefined();
    expect(lastActivityMs({ count: 0, day: "2026-08-25" })).toBeUndefined();
  });
});

describe("isTriageState", () => {
  it("accepts what admit writes", () => {
    expect(isTriageState(EMPTY_TRIAGE_STATE)).toBe(true);
    expect(isTriageState(afterEvents(3, 60, 3600))).toBe(true);
  });

  it.each([
    ["null", null],
    ["an array", []],
    ["no count", {}],
    ["a negative count", { count: -1 }],
    ["a fractional wake time", { count: 0, lastWakeMs: 1.5 }],
    ["a malformed day", { count: 0, day: "25.08.2026" }],
    ["an empty seen", { count: 0, seen: "" }],
    ["a truncated seen", { count: 0, seen: "k3x9a1.2AAAAAAA" }],
    ["an unknown key", { count: 0, extra: true }],
  ])("refuses %s", (_, value) => {
    expect(isTriageState(value)).toBe(false);
  });
});
