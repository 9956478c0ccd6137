import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { TriageConflictError } from "../../../operators/triage/triageConflictError.js";
import { triageEvent } from "../../../operators/triage/triageEvent.js";
import { triageNow } from "../../../operators/triage/triageNow.js";
import { DISABLED_TRIAGE } from "../../../operators/triage/triageSettings.js";
import { WAKE, type TriageVerdict } from "../../../operators/triage/triageVerdict.js";
import { MemoryTriageStore, type TriageStore } from "../../../src/state/triageStore.js";
import { gatewayEvent } from "../../helpers/events.js";
import { testScheduler } from "../../helpers/marbles.js";
import { enabled, SECOND, sync } from "./conversations.js";
import { conflictingStore, untouchableStore } from "./stores.js";

const proactive = (id: string, channel = "c1"): GatewayEvent => gatewayEvent({ event_id: id, channel: { id: channel, type: "dm" }, proactive: true });

/** A memory store whose first `conflicts` compareAndSetNow calls lose to a rival writer (or, `Infinity`, all of them). */
function conflictingNow(conflicts: number): TriageStore & { casCalls: number } {
  const inner = new MemoryTriageStore();
  let left = conflicts;
  const store = {
    casCalls: 0,
    read: inner.read.bind(inner),
    compareAndSet: inner.compareAndSet.bind(inner),
    sweep: inner.sweep.bind(inner),
    readNow: (key: string) => inner.readNow(key),
    compareAndSetNow: (...args: Parameters<MemoryTriageStore["compareAndSetNow"]>) => {
      store.casCalls += 1;
      if (left > 0) {
        left -= 1;
        return false;
      }
      return inner.compareAndSetNow(...args);
    },
  };
  return store;
}

describe("triageNow (triageEvent answered within the call)", () => {
  it("wakes a human message and a disabled triage without touching the store", () => {
    expect(triageNow(gatewayEvent({ event_id: "h1" }), { settings: enabled(), store: untouchableStore })).toBe(WAKE);
    expect(triageNow(proactive("p1"), { settings: DISABLED_TRIAGE, store: untouchableStore })).toBe(WAKE);
  });

  it("answers undefined for a store that answers only by Observable, without calling it", () => {
    expect(triageNow(proactive("p1"), { settings: enabled(), store: untouchableStore })).toBeUndefined();
    expect(triageNow(proactive("p1"), { settings: enabled(), store: conflictingStore(new MemoryTriageStore(), 0) })).toBeUndefined();
  });

  it("reads, admits and writes on the scheduler's clock: a second event inside the cooldown is suppressed, one after it wakes", () => {
    const store = new MemoryTriageStore();
    const settings = enabled({ cooldownSecs: 900 });
    const scheduler = testScheduler();
    const verdicts: [number, TriageVerdict | undefined][] = [];
    scheduler.run(() => {
      const decideAt = (ms: number, id: string) => scheduler.schedule(() => verdicts.push([scheduler.now(), triageNow(proactive(id), { settings, store, scheduler })]), ms);
      decideAt(0, "p1");
      decideAt(899 * SECOND, "p2");
      decideAt(900 * SECOND, "p3");
    });
    expect(verdicts).toEqual([
      [0, WAKE],
      [899 * SECOND, expect.objectContaining({ decision: "suppressed", reason: "cooldown", remainingSecs: 1 })],
      [900 * SECOND, WAKE],
    ]);
    expect(store.size).toBe(1);
  });

  it("decides exactly as triageEvent over any sequence of proactive events", () => {
    const arbitraryEvent = fc.record({ id: fc.constantFrom("a", "b", "c", "d"), channel: fc.constantFrom("c1", "c2"), gapSecs: fc.integer({ min: 0, max: 400 }) });
    fc.assert(
      fc.property(fc.array(arbitraryEvent, { maxLength: 30 }), fc.integer({ min: 0, max: 3 }), (events, dailyCap) => {
        const settings = enabled({ cooldownSecs: 300, dailyCap, dedupeWindowSecs: 3600 });
        const now = new MemoryTriageStore();
        const streamed = new MemoryTriageStore();
        // A virtual clock both read, moved by hand between events.
        const scheduler = testScheduler();
        for (const { id, channel, gapSecs } of events) {
          scheduler.frame += gapSecs * SECOND;
          const event = proactive(id, channel);
          const expected: TriageVerdict = sync(triageEvent(event, { settings, store: streamed, scheduler }));
          expect(triageNow(event, { settings, store: now, scheduler })).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("re-decides on a lost compareAndSet and gives up after maxAttempts with TriageConflictError", () => {
    const settings = enabled({ cooldownSecs: 60 });
    const twice = conflictingNow(2);
    expect(triageNow(proactive("p1"), { settings, store: twice })).toBe(WAKE);
    expect(twice.casCalls).toBe(3);
    const always = conflictingNow(Number.POSITIVE_INFINITY);
    expect(() => triageNow(proactive("p2"), { settings, store: always, maxAttempts: 3 })).toThrow(new TriageConflictError("telegram:c1", 3));
    expect(always.casCalls).toBe(3);
  });

  it("throws what the store throws", () => {
    const failing: TriageStore = {
      ...untouchableStore,
      readNow: () => {
        throw new Error("store down");
      },
      compareAndSetNow: () => true,
    };
    expect(() => triageNow(proactive("p1"), { settings: enabled(), store: failing })).toThrow("store down");
  });
});
