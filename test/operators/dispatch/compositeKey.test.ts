import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { compositeKey, compositeKeyParts } from "../../../operators/dispatch/compositeKey.js";
import { expectLinear } from "../../helpers/linearTime.js";

/** Strings heavy in the characters the encoding is about, plus any unicode (lone surrogates too). */
const part = fc.oneof(fc.string({ unit: fc.constantFrom(":", "%", "3", "A", "2", "5", "a") }), fc.string({ unit: "binary" }), fc.string());

describe("compositeKey", () => {
  it("leaves plain parts as they are and joins them with ':'", () => {
    expect(compositeKey(["telegram", "chat-1", "T1"])).toBe("telegram:chat-1:T1");
    expect(compositeKey(["slack", "C1", "1700000000.123"])).toBe("slack:C1:1700000000.123");
    expect(compositeKey(["line", "好🎉", ""])).toBe("line:好🎉:");
  });

  it("escapes ':' as %3A and '%' as %25 inside a part, nothing else", () => {
    expect(compositeKey(["a:b", "c"])).toBe("a%3Ab:c");
    expect(compositeKey(["a", "b:c"])).toBe("a:b%3Ac");
    expect(compositeKey(["100%", "%3A"])).toBe("100%25:%253A");
  });

  test.prop([fc.array(part, { minLength: 1, maxLength: 4 })], { numRuns: 2_000 })("reads back the parts it joined", (parts) => {
    expect(compositeKeyParts(compositeKey(parts), parts.length)).toEqual(parts);
  });

  test.prop([fc.integer({ min: 1, max: 4 }).chain((n) => fc.tuple(fc.array(part, { minLength: n, maxLength: n }), fc.array(part, { minLength: n, maxLength: n })))], {
    numRuns: 2_000,
  })("makes different keys of different lists of the same length", ([one, two]) => {
    fc.pre(JSON.stringify(one) !== JSON.stringify(two));
    expect(compositeKey(one)).not.toBe(compositeKey(two));
  });
});

describe("compositeKeyParts", () => {
  it("refuses another number of parts", () => {
    expect(compositeKeyParts("telegram:T1", 3)).toBeUndefined();
    expect(compositeKeyParts("a:b:c:d", 3)).toBeUndefined();
  });

  it("refuses an escape compositeKey never writes (lower case, another byte, a bare %)", () => {
    for (const key of ["a%3ab:c:", "a%41:c:", "a%:c:", "a%2:c:"]) expect(compositeKeyParts(key, 3)).toBeUndefined();
  });

  test.prop([fc.string({ unit: fc.constantFrom(":", "%", "3", "A", "2", "5", "x") }), fc.integer({ min: 1, max: 4 })], { numRuns: 2_000 })(
    "reads only what compositeKey makes back to the same string",
    (key, arity) => {
      const parts = compositeKeyParts(key, arity);
      if (parts !== undefined) expect(compositeKey(parts)).toBe(key);
    },
  );

  it("takes time linear in the key (a long run of escapes)", () => {
    const escapes = (count: number) => `${"%3A".repeat(count)}:x:`;
    expect(compositeKeyParts(escapes(200_000), 3)?.[0]).toHaveLength(200_000);
    expectLinear(escapes, (key) => compositeKeyParts(key, 3), 200_000);
  });
});
