import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../operators/ingress/groupHistory.js";
import { appendStep, isHistoryRecord, removeStep } from "../../src/state/historyRecord.js";
import { MemoryHistoryStore } from "../../src/state/historyStore.js";
import { describeHistoryStoreContract } from "./contracts/historyStoreContract.js";

const entry = (id: string): HistoryEntry => ({ messageId: id, sender: "ana", text: `text ${id}` });

describe("MemoryHistoryStore: the HistoryStore contract", () => {
  describeHistoryStoreContract(() => new MemoryHistoryStore());
});

describe("history record steps", () => {
  it("writes nothing for an id already kept, and removes the key once a history empties", () => {
    const kept = { entries: [entry("1")] };
    expect(appendStep(kept, entry("1"), 5)).toEqual({ result: undefined });
    expect(appendStep(undefined, entry("1"), 5)).toEqual({ result: undefined, next: kept });
    expect(appendStep(undefined, entry("1"), 0)).toEqual({ result: undefined, next: null });
    expect(removeStep(kept, [entry("1")])).toEqual({ result: undefined, next: null });
    expect(removeStep(kept, [entry("2")])).toEqual({ result: undefined });
    expect(removeStep(undefined, [entry("1")])).toEqual({ result: undefined });
  });

  it("reads only a well-formed record", () => {
    expect(isHistoryRecord({ entries: [entry("1"), { ...entry("2"), timestamp: "2026-12-03T08:00:00Z" }] })).toBe(true);
    for (const bad of [null, [], { entries: "x" }, { entries: [{ messageId: 1, sender: "a", text: "b" }] }, { entries: [{ ...entry("1"), timestamp: 5 }] }]) {
      expect(isHistoryRecord(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});
