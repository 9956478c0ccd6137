import { describe, expect, it } from "vitest";
import { admit } from "../../operators/triage/admit.js";
import type { TriageState } from "../../operators/triage/triageState.js";
import { DUPLICATE } from "../../operators/triage/triageVerdict.js";
import { MemoryTriageStore, type TriageStore } from "../../src/state/triageStore.js";
import { at, Conversations, enabled, sync } from "../operators/triage/conversations.js";

const woke = (atMs: number): TriageState => ({ lastWakeMs: atMs, day: "2026-08-25", count: 1 });

// The contract every TriageStore keeps; a NATS KV store joins this list.
describe.each([["MemoryTriageStore", (): TriageStore => new MemoryTriageStore()]])("%s: the TriageStore contract", (_, create) => {
  it("reads undefined for an unknown key", () => {
    expect(sync(create().read("telegram:c1"))).toBeUndefined();
  });

  it("creates a key only when no revision is expected, and reads back the state with its revision", () => {
    const store = create();
    expect(sync(store.compareAndSet("telegram:c1", woke(1), 7))).toBe(false);
    expect(sync(store.compareAndSet("telegram:c1", woke(1), undefined))).toBe(true);
    const entry = sync(store.read("telegram:c1"));
    expect(entry?.state).toEqual(woke(1));
    expect(entry?.revision).toEqual(expect.any(Number));
    expect(sync(store.compareAndSet("telegram:c1", woke(2), undefined))).toBe(false); // exists now
  });

  it("updates only from the current revision; a stale one conflicts and changes nothing", () => {
    const store = create();
    sync(store.compareAndSet("telegram:c1", woke(1), undefined));
    const first = sync(store.read("telegram:c1"));
    expect(sync(store.compareAndSet("telegram:c1", woke(2), first?.revision))).toBe(true);
    const second = sync(store.read("telegram:c1"));
    expect(second?.revision).not.toBe(first?.revision);
    expect(sync(store.compareAndSet("telegram:c1", woke(3), first?.revision))).toBe(false);
    expect(sync(store.read("telegram:c1"))).toEqual(second);
  });

  it("keeps keys apart", () => {
    const store = create();
    sync(store.compareAndSet("telegram:c1", woke(1), undefined));
    sync(store.compareAndSet("telegram:c2", woke(2), undefined));
    expect(sync(store.read("telegram:c1"))?.state).toEqual(woke(1));
    expect(sync(store.read("telegram:c2"))?.state).toEqual(woke(2));
  });

  it("does nothing until subscribed (lazy Observables)", () => {
    const store = create();
    const write = store.compareAndSet("telegram:c1", woke(1), undefined);
    const sweep = store.sweep(Number.MAX_SAFE_INTEGER);
    expect(sync(store.read("telegram:c1"))).toBeUndefined();
    expect(sync(write)).toBe(true);
    expect(sync(store.read("telegram:c1"))).toBeDefined();
    expect(sync(sweep)).toBe(1);
  });

  it("sweeps conversations older than the cutoff or without activity, keeps the rest untouched", () => {
    const store = create();
    sync(store.compareAndSet("stale", woke(999), undefined));
    sync(store.compareAndSet("edge", woke(1_000), undefined));
    sync(store.compareAndSet("fresh", woke(5_000), undefined));
    sync(store.compareAndSet("idle", { count: 0, day: "2026-08-25" }, undefined));
    const fresh = sync(store.read("fresh"));
    expect(sync(store.sweep(1_000))).toBe(2);
    expect(sync(store.read("stale"))).toBeUndefined();
    expect(sync(store.read("idle"))).toBeUndefined();
    expect(sync(store.read("edge"))?.state).toEqual(woke(1_000));
    expect(sync(store.read("fresh"))).toEqual(fresh);
  });

  it("counts a remembered id as activity", () => {
    const store = create();
    const seenOnly = admit(undefined, "e1", enabled({ quietHours: { startMinute: 0, endMinute: 1439 }, dedupeWindowSecs: 3600 }), 10_000).state;
    expect(seenOnly.lastWakeMs).toBeUndefined();
    sync(store.compareAndSet("telegram:c1", seenOnly, undefined));
    expect(sync(store.sweep(10_000))).toBe(0);
    expect(sync(store.sweep(10_001))).toBe(1);
  });

  it("never reuses a revision after a sweep removed the key (no ABA)", () => {
    const store = create();
    sync(store.compareAndSet("telegram:c1", woke(1), undefined));
    const before = sync(store.read("telegram:c1"));
    sync(store.sweep(2));
    sync(store.compareAndSet("telegram:c1", woke(3), undefined));
    expect(sync(store.compareAndSet("telegram:c1", woke(4), before?.revision))).toBe(false);
  });
});

describe("MemoryTriageStore: event_triage.rs", () => {
  it("sweep_drops_only_stale_conversations", () => {
    const state = new Conversations();
    const cfg = enabled({ dedupeWindowSecs: 3600 });
    state.admit("old", "e1", cfg, at("2026-08-20T12:00:00Z"));
    state.admit("fresh", "e2", cfg, at("2026-08-25T12:00:00Z"));
    expect(state.tracked).toBe(2);
    state.sweep(at("2026-08-24T00:00:00Z"));
    expect(state.tracked).toBe(1);
    // The survivor keeps its history — sweeping is not a reset.
    expect(state.admit("fresh", "e2", cfg, at("2026-08-25T12:30:00Z"))).toEqual(DUPLICATE);
  });
});

describe("MemoryTriageStore", () => {
  it("size counts the tracked conversations", () => {
    const store = new MemoryTriageStore();
    expect(store.size).toBe(0);
    sync(store.compareAndSet("a", woke(1), undefined));
    sync(store.compareAndSet("b", woke(1), undefined));
    expect(store.size).toBe(2);
  });
});
