import { firstValueFrom, lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import { MemoryDeliveryLedger } from "../../src/state/deliveryLedger.js";
import { beginStep, completeStep, deliveredStep, isLedgerRecord, MAX_PLACEHOLDER_ID_CHARS, MAX_PLACEHOLDERS, type LedgerRecord } from "../../src/state/ledgerRecord.js";
import { describeDeliveryLedgerContract } from "./contracts/deliveryLedgerContract.js";

describe("MemoryDeliveryLedger: the DeliveryLedger contract", () => {
  describeDeliveryLedgerContract(() => new MemoryDeliveryLedger());
});

describe("MemoryDeliveryLedger", () => {
  it("keeps the max most recently written records, oldest out", async () => {
    const ledger = new MemoryDeliveryLedger({ max: 2 });
    for (const key of ["a", "b", "c"]) await firstValueFrom(ledger.begin(key, 1));
    await lastValueFrom(ledger.delivered("a", 1, 2), { defaultValue: undefined }); // not kept: "a" was evicted, this writes it anew and evicts "b"
    await expect(firstValueFrom(ledger.begin("b", 3))).resolves.toBeUndefined();
    await expect(firstValueFrom(ledger.begin("c", 3))).resolves.toBeUndefined(); // evicted by the writes of "a" and "b"
  });

  it("answers synchronously on subscription (marble tests of the code around it are exact)", () => {
    const ledger = new MemoryDeliveryLedger();
    const seen: unknown[] = [];
    const note = { next: (value: unknown) => seen.push(value), complete: () => seen.push("|") };
    ledger.begin("k", 1).subscribe(note);
    ledger.delivered("k", 2, 2).subscribe(note);
    ledger.complete("k", 3).subscribe(note);
    ledger.read("k").subscribe(note);
    ledger.delivered("k", -1, 4).subscribe({ error: (err: unknown) => seen.push(err) });
    expect(seen).toEqual([undefined, "|", "|", "|", { state: "complete", attempts: 1, delivered: 2, updatedAt: 3 }, "|", expect.any(RangeError)]); // writes complete without a value
  });
});

describe("ledger record steps (what every DeliveryLedger decides)", () => {
  const started: LedgerRecord = { state: "started", attempts: 2, delivered: 3, updatedAt: 10 };
  const complete: LedgerRecord = { ...started, state: "complete" };

  it("begin returns the record before and writes a new attempt, except on a complete record", () => {
    expect(beginStep(undefined, 20)).toEqual({ result: undefined, next: { state: "started", attempts: 1, delivered: 0, updatedAt: 20 } });
    expect(beginStep(started, 20)).toEqual({ result: started, next: { ...started, attempts: 3, updatedAt: 20 } });
    expect(beginStep(complete, 20)).toEqual({ result: complete });
  });

  it("delivered only raises the count", () => {
    expect(deliveredStep(started, 4, 20)).toEqual({ result: undefined, next: { ...started, delivered: 4, updatedAt: 20 } });
    expect(deliveredStep(started, 3, 20)).toEqual({ result: undefined });
    expect(() => deliveredStep(started, -1, 20)).toThrow(RangeError);
  });

  it("complete marks the record done once", () => {
    expect(completeStep(started, 20)).toEqual({ result: undefined, next: { ...started, state: "complete", updatedAt: 20 } });
    expect(completeStep(complete, 20)).toEqual({ result: undefined });
  });

  it("delivered with a placeholder adds its id once, even when the count is not raised; the oldest go past the cap", () => {
    expect(deliveredStep(started, 4, 20, { id: "m1", kind: "placeholder" })).toEqual({ result: undefined, next: { ...started, delivered: 4, updatedAt: 20, placeholders: ["m1"] } });
    const kept = { ...started, placeholders: ["m1"] };
    expect(deliveredStep(kept, 1, 21, { id: "m2", kind: "placeholder" })).toEqual({ result: undefined, next: { ...started, updatedAt: 21, placeholders: ["m1", "m2"] } });
    expect(deliveredStep(kept, 3, 21, { id: "m1", kind: "placeholder" })).toEqual({ result: undefined }); // already there, count not raised
    const full = { ...started, placeholders: Array.from({ length: MAX_PLACEHOLDERS }, (_, i) => `p${i}`) };
    expect(deliveredStep(full, 3, 22, { id: "new", kind: "placeholder" }).next?.placeholders).toEqual([...Array.from({ length: MAX_PLACEHOLDERS - 1 }, (_, i) => `p${i + 1}`), "new"]);
  });

  it("delivered keeps no id a gateway could swell a record with (too long, or empty)", () => {
    expect(deliveredStep(started, 3, 20, { id: "x".repeat(MAX_PLACEHOLDER_ID_CHARS + 1), kind: "placeholder" })).toEqual({ result: undefined });
    expect(deliveredStep(started, 3, 20, { id: "", kind: "placeholder" })).toEqual({ result: undefined });
    expect(deliveredStep(started, 3, 20, { id: "x".repeat(MAX_PLACEHOLDER_ID_CHARS), kind: "placeholder" }).next?.placeholders).toHaveLength(1);
  });

  it("begin keeps the placeholders an attempt recorded (the re-run deletes them); complete drops them", () => {
    const streamed: LedgerRecord = { ...started, placeholders: ["m1"] };
    expect(beginStep(streamed, 20)).toEqual({ result: streamed, next: { ...streamed, attempts: 3, updatedAt: 20 } });
    expect(completeStep(streamed, 20)).toEqual({ result: undefined, next: { ...started, state: "complete", updatedAt: 20 } });
  });

  it("recognises only well-formed records", () => {
    expect(isLedgerRecord(started)).toBe(true);
    expect(isLedgerRecord({ ...started, placeholders: ["m1", "m2"] })).toBe(true);
    const tooMany = Array.from({ length: MAX_PLACEHOLDERS + 1 }, (_, i) => `p${i}`);
    for (const bad of [null, [], {}, { ...started, state: "done" }, { ...started, attempts: -1 }, { ...started, delivered: 1.5 }, { ...started, updatedAt: "1" }, { ...started, placeholders: "m1" }, { ...started, placeholders: [1] }, { ...started, placeholders: tooMany }, { ...started, placeholders: ["x".repeat(MAX_PLACEHOLDER_ID_CHARS + 1)] }]) {
      expect(isLedgerRecord(bad)).toBe(false);
    }
  });
});
