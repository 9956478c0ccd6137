import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../operators/ingress/prompt/groupHistory.js";
import { appendStep, isHistoryRecord, removeStep } from "../../src/state/historyRecord.js";
import { HISTORY_MAX_BYTES } from "../../operators/ingress/prompt/historyBudget.js";
import { MemoryHistoryStore } from "../../src/state/historyStore.js";
import { describeHistoryStoreContract } from "./contracts/historyStoreContract.js";

const entry = (id: string): HistoryEntry => ({ messageId: id, sender: "ana", text: `text ${id}` });

describe("MemoryHistoryStore: the HistoryStore contract", () => {
  describeHistoryStoreContract(() => new MemoryHistoryStore(), HISTORY_MAX_BYTES);
});

describe("MemoryHistoryStore with a small budget: the HistoryStore contract", () => {
  describeHistoryStoreContract(() => new MemoryHistoryStore({ maxBytes: 2_000 }), 2_000);
});

describe("history record steps", () => {
  it("writes nothing for an id already kept, and removes the key once a history empties", () => {
    const kept = { entries: [entry("1")] };
    const none = { dropped: 0, bytes: 14 + JSON.stringify(entry("1")).length + 1, budget: 1_000 };
    expect(appendStep(kept, entry("1"), 5, 1_000)).toEqual({ result: none });
    expect(appendStep(undefined, entry("1"), 5, 1_000)).toEqual({ result: none, next: kept });
    expect(appendStep(undefined, entry("1"), 0, 1_000)).toEqual({ result: { dropped: 0, bytes: 14, budget: 1_000 }, next: null });
    expect(removeStep(kept, [entry("1")])).toEqual({ result: undefined, next: null });
    expect(removeStep(kept, [entry("2")])).toEqual({ result: undefined });
    expect(removeStep(undefined, [entry("1")])).toEqual({ result: undefined });
  });

  it("the byte budget: the oldest go first, a message too big alone is dropped itself, the record stays within it", () => {
    const sized = (id: string) => ({ messageId: id, sender: "ana", text: "x".repeat(400) });
    const one = JSON.stringify(sized("1")).length + 1;
    const budget = 14 + 2 * one;
    const full = { entries: [sized("1"), sized("2")] };
    expect(appendStep(full, sized("3"), 100, budget)).toEqual({ result: { dropped: 1, bytes: budget, budget }, next: { entries: [sized("2"), sized("3")] } });
    const huge = { messageId: "4", sender: "ana", text: "y".repeat(budget) };
    expect(appendStep(full, huge, 100, budget)).toEqual({ result: { dropped: 1, bytes: budget, budget } });
    // A duplicate of a kept id is no drop, however big.
    expect(appendStep(full, { ...huge, messageId: "1" }, 100, budget)).toEqual({ result: { dropped: 0, bytes: budget, budget } });
  });

  it("reads only a well-formed record", () => {
    expect(isHistoryRecord({ entries: [entry("1"), { ...entry("2"), timestamp: "2026-12-03T08:00:00Z" }] })).toBe(true);
    for (const bad of [null, [], { entries: "x" }, { entries: [{ messageId: 1, sender: "a", text: "b" }] }, { entries: [{ ...entry("1"), timestamp: 5 }] }]) {
      expect(isHistoryRecord(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
