import { merge } from "rxjs";
import { describe, expect, it } from "vitest";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { admit } from "../../../operators/triage/admit.js";
import { TRIAGE_MAX_ATTEMPTS, triage, TriageConflictError, type TriageDecision } from "../../../operators/triage/triage.js";
import { unpackSeen } from "../../../operators/triage/seenIds.js";
import { cooldownVerdict, type TriageVerdict, WAKE } from "../../../operators/triage/triageVerdict.js";
import { MemoryTriageStore } from "../../../src/state/triageStore.js";
import { gatewayEvent } from "../../helpers/events.js";
import { testScheduler } from "../../helpers/marbles.js";
import { enabled, sync } from "./conversations.js";
import { conflictingStore, CountingStore, failingStore, slowStore } from "./stores.js";

const proactive = (id: string, channel = "c1"): GatewayEvent => gatewayEvent({ event_id: id, channel: { id: channel, type: "dm" }, proactive: true });
const decide = (values: Record<string, [GatewayEvent, TriageVerdict]>): Record<string, TriageDecision> =>
  Object.fromEntries(Object.entries(values).map(([name, [event, verdict]]) => [name, { event, verdict }]));
const KEY = "telegram:c1";
const settings = enabled({ cooldownSecs: 900, dedupeWindowSecs: 3600 });

describe("triage: compare-and-set conflicts", () => {
  it("re-reads and re-decides when another writer won the race (here: a rival's wake opens a cooldown)", () => {
    const inner = new MemoryTriageStore();
    const rivalWakes = () => {
      const entry = sync(inner.read(KEY));
      sync(inner.compareAndSet(KEY, admit(entry?.state, "rival", settings, 0).state, entry?.revision));
    };
    const store = new CountingStore(conflictingStore(inner, 1, rivalWakes));
    const values = { a: proactive("e1") };
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("a|", values).pipe(triage({ settings, store }))).toBe("a|", decide({ a: [values.a, cooldownVerdict(900)] }));
    });
    expect(store).toMatchObject({ reads: 2, writes: 2 });
    // Both writers' ids survive: the retry started from the rival's state.
    expect(unpackSeen(sync(inner.read(KEY))?.state.seen)).toHaveLength(2);
  });

  it("two workers sharing one slow store: compare-and-set lets exactly one of two simultaneous events wake", () => {
    const inner = new CountingStore();
    const values = { a: proactive("e1"), b: proactive("e2") };
    testScheduler().run(({ cold, expectObservable }) => {
      const shared = slowStore(inner, 2, 1);
      // Each worker serializes its own events; only the store's revision check orders the two.
      const workerA = cold("a|", values).pipe(triage({ settings, store: shared }));
      const workerB = cold("b|", values).pipe(triage({ settings, store: shared }));
      expectObservable(merge(workerA, workerB)).toBe("---a--(b|)", decide({ a: [values.a, WAKE], b: [values.b, cooldownVerdict(900)] }));
    });
    // B's first write lost (it read before A's landed); its retry read A's wake.
    expect(inner).toMatchObject({ reads: 3, writes: 3 });
  });

  it("retries a plain conflict and then wakes", () => {
    const store = new CountingStore(conflictingStore(new MemoryTriageStore(), 1));
    const values = { a: proactive("e1") };
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("a|", values).pipe(triage({ settings, store }))).toBe("a|", decide({ a: [values.a, WAKE] }));
    });
    expect(store).toMatchObject({ reads: 2, writes: 2 });
  });

  it(`gives up after ${TRIAGE_MAX_ATTEMPTS} conflicts in a row with a TriageConflictError`, () => {
    const store = new CountingStore(conflictingStore(new MemoryTriageStore(), Number.POSITIVE_INFINITY));
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a|", { a: proactive("e1") }).pipe(triage({ settings, store }));
      expectObservable(out).toBe("#", undefined, new TriageConflictError(KEY, TRIAGE_MAX_ATTEMPTS));
    });
    expect(store).toMatchObject({ reads: TRIAGE_MAX_ATTEMPTS, writes: TRIAGE_MAX_ATTEMPTS });
  });

  it("honours maxAttempts, and the error is typed with the key and the attempts", () => {
    const store = new CountingStore(conflictingStore(new MemoryTriageStore(), Number.POSITIVE_INFINITY));
    let caught: unknown;
    testScheduler().run(({ cold }) => {
      cold("a|", { a: proactive("e1") })
        .pipe(triage({ settings, store, maxAttempts: 3 }))
        .subscribe({ error: (error: unknown) => (caught = error) });
    });
    expect(caught).toBeInstanceOf(TriageConflictError);
    expect(caught).toMatchObject({ name: "TriageConflictError", key: KEY, attempts: 3 });
    expect(store.reads).toBe(3);
  });
});

describe("triage: errors, completion, unsubscription", () => {
  it("errors with the store's error (no verdict is invented)", () => {
    const failure = new Error("kv unavailable");
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold("a|", { a: proactive("e1") }).pipe(triage({ settings, store: failingStore(failure) }))).toBe("#", undefined, failure);
    });
  });

  it("passes the source's error on", () => {
    const values = { a: proactive("e1") };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a-#", values, new Error("socket closed")).pipe(triage({ settings, store: new MemoryTriageStore() }));
      expectObservable(out).toBe("a-#", decide({ a: [values.a, WAKE] }), new Error("socket closed"));
    });
  });

  it("completes only after the last evaluation finished", () => {
    const values = { a: proactive("e1") };
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("(a|)", values).pipe(triage({ settings, store: slowStore(new MemoryTriageStore(), 3, 2) }));
      expectObservable(out).toBe("-----(a|)", decide({ a: [values.a, WAKE] }));
    });
  });

  it("unsubscribing mid-evaluation cancels it: nothing is written", () => {
    const inner = new MemoryTriageStore();
    testScheduler().run(({ cold, expectObservable }) => {
      const out = cold("a", { a: proactive("e1") }).pipe(triage({ settings, store: slowStore(inner, 5, 1) }));
      expectObservable(out, "^--!").toBe("---");
    });
    expect(inner.size).toBe(0);
  });
});
