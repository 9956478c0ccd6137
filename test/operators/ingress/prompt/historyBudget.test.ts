import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../../../operators/ingress/prompt/groupHistory.js";
import { fitsHistoryBudget, HISTORY_MAX_BYTES, historyEntryBytes, historyWithinBytes } from "../../../../operators/ingress/prompt/historyBudget.js";

const entry = (id: string, text: string): HistoryEntry => ({ messageId: id, sender: "Ana", text });
const recordBytes = (entries: readonly HistoryEntry[]) => Buffer.byteLength(JSON.stringify({ entries }), "utf8");

describe("historyWithinBytes", () => {
  it("keeps everything that fits, counting a record's bytes as JSON in UTF-8 (never under)", () => {
    const history = [entry("1", "héllo"), entry("2", "😀 \" \\ \u0001")];
    const within = historyWithinBytes(history, 10_000);
    expect(within.entries).toEqual(history);
    expect(within.dropped).toBe(0);
    expect(within.bytes).toBeGreaterThanOrEqual(recordBytes(history));
    expect(within.bytes - recordBytes(history)).toBeLessThanOrEqual(1);
  });

  it("drops the oldest first until the record fits", () => {
    const history = ["1", "2", "3", "4"].map((id) => entry(id, "x".repeat(100)));
    const budget = 14 + 2 * historyEntryBytes(history[0] as HistoryEntry);
    const within = historyWithinBytes(history, budget);
    expect(within.entries.map((e) => e.messageId)).toEqual(["3", "4"]);
    expect(within.dropped).toBe(2);
    expect(recordBytes(within.entries)).toBeLessThanOrEqual(budget);
  });

  it("1,000 messages of 1,990 characters fit the default budget as their newest ~130, in one linear pass", () => {
    const history = Array.from({ length: 1_000 }, (_, i) => entry(`m${i}`, "y".repeat(1_990)));
    const within = historyWithinBytes(history, HISTORY_MAX_BYTES);
    expect(within.entries.at(-1)?.messageId).toBe("m999");
    expect(within.entries.length).toBeGreaterThan(120);
    expect(within.entries.length).toBeLessThan(135);
    expect(recordBytes(within.entries)).toBeLessThanOrEqual(HISTORY_MAX_BYTES);
  });

  it("is pure and handles the empty history", () => {
    const history = Object.freeze([entry("1", "a")]);
    expect(historyWithinBytes(history, 10_000).entries).not.toBe(history);
    expect(historyWithinBytes([], 0)).toEqual({ entries: [], dropped: 0, bytes: 14 });
  });
});

describe("fitsHistoryBudget", () => {
  it("says whether one entry alone fits a record", () => {
    const one = entry("1", "z".repeat(50));
    expect(fitsHistoryBudget(one, 14 + historyEntryBytes(one))).toBe(true);
    expect(fitsHistoryBudget(one, 13 + historyEntryBytes(one))).toBe(false);
  });
});
