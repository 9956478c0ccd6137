import { describe, expect, it } from "vitest";
import { admit } from "../../../operators/triage/admit.js";
import { MAX_SEEN, unpackSeen } from "../../../operators/triage/seenIds.js";
import type { SeenWork } from "../../../operators/triage/seenWindow.js";
import type { TriageState } from "../../../operators/triage/triageState.js";
import { DUPLICATE } from "../../../operators/triage/triageVerdict.js";
import { at, enabled, SECOND } from "./conversations.js";

// Work, not time: how many remembered ids one decision decodes, encodes, drops or looks up.
const WINDOW_SECS = 3600;
const cfg = enabled({ dedupeWindowSecs: WINDOW_SECS, cooldownSecs: 900, dailyCap: 8 });
const t = at("2026-08-25T12:00:00Z");

/** A conversation that has been receiving distinct ids at a steady `rememberedIds` per window (capped), as a chain of states. */
function steady(rememberedIds: number): { state: TriageState; nowMs: number; next: number } {
  const gapMs = (WINDOW_SECS * SECOND) / rememberedIds;
  let state: TriageState | undefined;
  let nowMs = t;
  const total = rememberedIds + 50;
  for (let i = 0; i < total; i++, nowMs += gapMs) state = admit(state, `gmail-thread-${i}`, cfg, nowMs).state;
  return { state: state as TriageState, nowMs, next: total };
}

/** Mean and max work over `decisions` further decisions at the same pace, each on the state the last returned. */
function workPerDecision(rememberedIds: number, decisions: number): { mean: number; max: number; remembered: number } {
  const gapMs = (WINDOW_SECS * SECOND) / rememberedIds;
  let { state, nowMs, next } = steady(rememberedIds);
  let total = 0;
  let max = 0;
  for (let i = 0; i < decisions; i++, nowMs += gapMs) {
    const work: SeenWork = { entries: 0 };
    state = admit(state, `gmail-thread-${next + i}`, cfg, nowMs, work).state;
    total += work.entries;
    max = Math.max(max, work.entries);
  }
  return { mean: total / decisions, max, remembered: unpackSeen(state.seen)?.length ?? 0 };
}

describe("admit: a decision's work does not grow with the ids remembered", () => {
  it.each([10, 100, 1_000, 10_000])("%i distinct ids per window: a handful of entries touched per decision, amortised", (ids) => {
    const { mean, remembered } = workPerDecision(ids, 2_000);
    // The window is inclusive (one more than `ids` fits), the cap is not.
    expect(remembered).toBe(Math.min(ids + 1, MAX_SEEN));
    // Expire one, look one up, append one, and a share of the re-encodes: the offsets' headroom lasts
    // ≥ window/8, so each id is re-encoded at most ~9 times in its life. Below 64 ids the window is
    // decoded afresh each time instead (≤ 63 entries, plus the same steps).
    expect(mean).toBeLessThanOrEqual(ids < 64 ? 2 * 64 : 3 + 9);
  });

  it("the amortised cost is flat: 1,000 remembered ids cost no more per decision than 100", () => {
    expect(workPerDecision(1_000, 3_000).mean).toBeLessThanOrEqual(workPerDecision(100, 3_000).mean + 1);
  });

  it("a duplicate is found with one lookup, whatever the window holds", () => {
    const { state, nowMs, next } = steady(1_000);
    const work: SeenWork = { entries: 0 };
    expect(admit(state, `gmail-thread-${next - 1}`, cfg, nowMs, work).verdict).toEqual(DUPLICATE);
    expect(work.entries).toBeLessThanOrEqual(3);
  });

  it("a state not produced by this process (parsed from shared state) is decoded once, then decisions are cheap again", () => {
    const { state, nowMs, next } = steady(1_000);
    const copy = JSON.parse(JSON.stringify(state)) as TriageState;
    const first: SeenWork = { entries: 0 };
    const after = admit(copy, `gmail-thread-${next}`, cfg, nowMs, first).state;
    expect(first.entries).toBeGreaterThanOrEqual(MAX_SEEN);
    const second: SeenWork = { entries: 0 };
    admit(after, `gmail-thread-${next + 1}`, cfg, nowMs + 3600, second);
    expect(second.entries).toBeLessThanOrEqual(12);
  });
});
