import { concat, EMPTY, map, of } from "rxjs";
import { describe, it } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { TriageConflictError } from "../../../operators/triage/triageConflictError.js";
import { triageEvent } from "../../../operators/triage/triageEvent.js";
import { DISABLED_TRIAGE } from "../../../operators/triage/triageSettings.js";
import { WAKE } from "../../../operators/triage/triageVerdict.js";
import { MemoryTriageStore } from "../../../src/state/triageStore.js";
import { gatewayEvent } from "../../helpers/events.js";
import { testScheduler } from "../../helpers/marbles.js";
import { enabled } from "./conversations.js";
import { conflictingStore, slowStore, untouchableStore } from "./stores.js";

const proactive = (id: string): GatewayEvent => gatewayEvent({ event_id: id, channel: { id: "c1", type: "dm" }, proactive: true });

describe("triageEvent (one event, for a caller that serializes its conversation)", () => {
  it("wakes a human message and a disabled triage without touching the store", () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(triageEvent(gatewayEvent({ event_id: "h1" }), { settings: enabled(), store: untouchableStore })).toBe("(w|)", { w: WAKE });
      expectObservable(triageEvent(proactive("p1"), { settings: DISABLED_TRIAGE, store: untouchableStore })).toBe("(w|)", { w: WAKE });
    });
  });

  it("reads, admits and writes on the store's time: a second event inside the cooldown is suppressed", () => {
    const store = slowStore(new MemoryTriageStore(), 2, 3);
    const settings = enabled({ cooldownSecs: 900 });
    const scheduler = testScheduler();
    scheduler.run(({ expectObservable }) => {
      const decisions = concat(triageEvent(proactive("p1"), { settings, store, scheduler }), triageEvent(proactive("p2"), { settings, store, scheduler })).pipe(
        map((verdict) => (verdict.decision === "wake" ? "wake" : verdict.reason)),
      );
      // p1: read (2 frames), admit, write (3): wakes at 5. p2: read at 7, inside the cooldown; nothing changed, so no write.
      expectObservable(decisions).toBe("-----w-(c|)", { w: "wake", c: "cooldown" });
    });
  });

  it("re-decides on a conflict and gives up after maxAttempts with TriageConflictError", () => {
    testScheduler().run(({ expectObservable }) => {
      const store = conflictingStore(new MemoryTriageStore(), 1);
      expectObservable(triageEvent(proactive("p1"), { settings: enabled({ cooldownSecs: 60 }), store })).toBe("(w|)", { w: WAKE });
      const always = conflictingStore(new MemoryTriageStore(), 100);
      expectObservable(triageEvent(proactive("p2"), { settings: enabled({ cooldownSecs: 60 }), store: always, maxAttempts: 3 })).toBe(
        "#",
        undefined,
        new TriageConflictError("telegram:c1", 3),
      );
    });
  });

  it("decides nothing on a read that answers nothing, takes a store's first answer only, and fails with the store's error", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const inner = new MemoryTriageStore();
      const empty = { ...conflictingStore(inner, 0), read: () => EMPTY };
      expectObservable(triageEvent(proactive("p1"), { settings: enabled(), store: empty })).toBe("|");
      const chatty = { ...conflictingStore(inner, 0), read: () => of(undefined, undefined), compareAndSet: () => of(true, false) };
      expectObservable(triageEvent(proactive("p2"), { settings: enabled(), store: chatty })).toBe("(w|)", { w: WAKE });
      const failing = { ...conflictingStore(inner, 0), read: () => cold<never>("--#", undefined, new Error("kv down")) };
      expectObservable(triageEvent(proactive("p3"), { settings: enabled(), store: failing })).toBe("--#", undefined, new Error("kv down"));
    });
  });

  it("cancels the store call in flight when unsubscribed", () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const read = cold<never>("-----");
      const store = { ...conflictingStore(new MemoryTriageStore(), 0), read: () => read };
      expectObservable(triageEvent(proactive("p1"), { settings: enabled(), store }), "--!").toBe("---");
      expectSubscriptions(read.subscriptions).toBe("^-!");
      const write = cold<boolean>("----(t|)", { t: true });
      const writing = { ...conflictingStore(new MemoryTriageStore(), 0), compareAndSet: () => write };
      expectObservable(triageEvent(proactive("p2"), { settings: enabled(), store: writing }), "--!").toBe("---");
      expectSubscriptions(write.subscriptions).toBe("^-!");
    });
  });
});

