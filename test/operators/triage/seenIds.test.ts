import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { decodeDigits, digitsFor, encodeDigits, idHash } from "../../../operators/triage/idHash.js";
import { packSeen, type SeenEntry, unpackSeen } from "../../../operators/triage/seenIds.js";

describe("idHash", () => {
  it("is 6 base64url chars and never changes (values live in shared state across versions)", () => {
    expect(idHash("")).toBe(idHash(""));
    expect(idHash("gmail-thread-18f2c0000")).toMatch(/^[A-Za-z0-9_-]{6}$/);
    expect([idHash("evt_1"), idHash("evt_2"), idHash("gmail-thread-18f2c0000"), idHash("日本語")]).toEqual(GOLDEN);
  });

  it("hashes UTF-8 bytes, so equal strings hash equal and near ones differ", () => {
    expect(idHash("e\u0301")).not.toBe(idHash("\u00e9"));
    const ids = Array.from({ length: 50_000 }, (_, i) => `gmail-thread-${(0x18f2c0000 + i).toString(16)}`);
    const hashes = ids.map(idHash);
    expect(new Set(hashes).size).toBe(ids.length);
    // Ids that differ only at the end still differ from the first character (the finalizer mixes).
    expect(new Set(hashes.slice(0, 1000).map((hash) => hash.charAt(0))).size).toBe(64);
  });

  test.prop([fc.string({ unit: "binary", maxLength: 40 })])("equals FNV-1a 64 + fmix64 computed with BigInt, lone surrogates included", (text) => {
    expect(idHash(text)).toBe(bigIntIdHash(text));
  });
});

/** The same digest with BigInt, straight from the definition (what idHash did before it went 32-bit). */
function bigIntIdHash(text: string): string {
  const mask = (1n << 64n) - 1n;
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & mask;
  hash ^= hash >> 33n;
  hash = (hash * 0xff51afd7ed558ccdn) & mask;
  hash ^= hash >> 33n;
  hash = (hash * 0xc4ceb9fe1a85ec53n) & mask;
  hash ^= hash >> 33n;
  return encodeDigits(Number(hash >> 28n), 6);
}

// Pinned (and cross-checked against an independent implementation of FNV-1a 64 + fmix64): a change here would
// make every running deployment forget its dedupe window.
const GOLDEN = ["7UwjHh", "XRC0cZ", "VcfBZz", "4RUYrM"];

describe("base64url digits", () => {
  it.each([
    [0, 1, "A"],
    [63, 1, "_"],
    [64, 2, "BA"],
    [3600, 2, "4Q"],
  ])("%i in %i digits is %s", (value, width, text) => {
    expect(encodeDigits(value, width)).toBe(text);
    expect(decodeDigits(text)).toBe(value);
    expect(digitsFor(value)).toBe(width);
  });

  it("refuses a value that does not fit and characters outside the alphabet", () => {
    expect(() => encodeDigits(64, 1)).toThrow(RangeError);
    expect(() => encodeDigits(-1, 3)).toThrow(RangeError);
    expect(decodeDigits("A+")).toBeUndefined();
  });
});

describe("packSeen / unpackSeen", () => {
  const entry = fc.record({ hash: fc.constantFrom("AAAAAA", "abc-_9", "zzzzzz", "Q1w2E3"), atSec: fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }) });

  test.prop([fc.array(entry, { maxLength: 50 })])("round-trips any entries, order kept", (entries: SeenEntry[]) => {
    expect(unpackSeen(packSeen(entries))).toEqual(entries);
  });

  it("packs nothing as absent and reads absent as nothing", () => {
    expect(packSeen([])).toBeUndefined();
    expect(unpackSeen(undefined)).toEqual([]);
  });

  it("uses the narrowest offset width and counts from the oldest entry, even out of order", () => {
    const packed = packSeen([
      { hash: "AAAAAA", atSec: 1_787_659_300 },
      { hash: "BBBBBB", atSec: 1_787_659_200 },
    ]);
    expect(packed).toBe(`${(1_787_659_200).toString(36)}.2AAAAAABkBBBBBBAA`);
  });

  it.each(["", ".", "abc", "abc.0", "abc.2AAAAAAA", "ABC.1AAAAAAA", "abc.1AAAAA+A"])("reads malformed %j as undefined", (packed) => {
    expect(unpackSeen(packed)).toBeUndefined();
  });
});
