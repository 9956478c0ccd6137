import { describe, expect, it } from "vitest";
import type { TriageState } from "../../operators/triage/triageState.js";
import { DUPLICATE } from "../../operators/triage/triageVerdict.js";
import { MemoryTriageStore } from "../../src/state/triageStore.js";
import { at, Conversations, enabled, sync } from "../operators/triage/conversations.js";
import { describeTriageStoreContract } from "./contracts/triageStoreContract.js";

const woke = (atMs: number): TriageState => ({ lastWakeMs: atMs, day: "2026-08-25", count: 1 });

describe("MemoryTriageStore: the TriageStore contract", () => {
  describeTriageStoreContract(() => new MemoryTriageStore());
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
  it("emits synchronously on subscription (marble tests drive it in virtual time)", () => {
    const store = new MemoryTriageStore();
    expect(sync(store.compareAndSet("a", woke(1), undefined))).toBe(true);
    expect(sync(store.read("a"))?.state).toEqual(woke(1));
    expect(sync(store.sweep(2))).toBe(1);
  });

  it("size counts the tracked conversations", () => {
    const store = new MemoryTriageStore();
    expect(store.size).toBe(0);
    sync(store.compareAndSet("a", woke(1), undefined));
    sync(store.compareAndSet("b", woke(1), undefined));
    expect(store.size).toBe(2);
  });
});
