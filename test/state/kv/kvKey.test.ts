import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { fromKvKey, kvKey, maxKvKeyLength } from "../../../src/state/kv/kvKey.js";

const VALID_KV_KEY = /^[-/_=.a-zA-Z0-9]+$/;

describe("kvKey", () => {
  it("keeps letters, digits, - _ / and escapes every other UTF-8 byte as =XX", () => {
    expect(kvKey("telegram:-100123")).toBe("telegram=3A-100123");
    expect(kvKey("discord:555/777")).toBe("discord=3A555/777");
    expect(kvKey("a.b=c")).toBe("a=2Eb=3Dc");
    expect(kvKey('["x","好"]')).toBe("=5B=22x=22=2C=22=E5=A5=BD=22=5D");
    expect(kvKey("")).toBe("=");
  });

  it("decodes only what it could have made", () => {
    expect(fromKvKey("telegram=3A-100123")).toBe("telegram:-100123");
    expect(fromKvKey("=")).toBe("");
    for (const foreign of ["a=zz", "a.b", "a=", "=FF", ""]) expect(fromKvKey(foreign)).toBeUndefined();
  });

  test.prop([fc.string({ unit: "binary" })], { numRuns: 500 })("is a valid KV key that decodes back (so no two strings share one)", (key) => {
    const encoded = kvKey(key);
    expect(encoded).toMatch(VALID_KV_KEY);
    expect(encoded.startsWith(".") || encoded.endsWith(".")).toBe(false);
    if (encoded.includes(".")) expect(encoded.length).toBeLessThanOrEqual(maxKvKeyLength);
    else expect(fromKvKey(encoded)).toBe(key);
  });

  // ASCII keys take a one-replace path (per event: every ledger key holds a `:`); it must spell exactly like the per-character one.
  test.prop([fc.string({ unit: "binary-ascii", maxLength: 80 })], { numRuns: 500 })("spells an ASCII key byte by byte, as =XX", (key) => {
    const byChar = key === "" ? "=" : [...key].map((c) => (/[A-Za-z0-9_/-]/.test(c) ? c : `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)).join("");
    expect(kvKey(key)).toBe(byChar);
  });

  it("escapes a lone surrogate as ==XXXX, apart from U+FFFD", () => {
    expect(kvKey("\ud800")).toBe("==D800");
    expect(kvKey("\ufffd")).toBe("=EF=BF=BD");
    expect(fromKvKey("==D800")).toBe("\ud800");
    expect(fromKvKey("==0041")).toBeUndefined();
  });

  it("hashes an encoding past maxKvKeyLength, so a long id cannot overflow nats-server's control line", () => {
    const long = `telegram:${"好".repeat(1000)}`;
    const key = kvKey(long);
    expect(key.length).toBeLessThanOrEqual(maxKvKeyLength);
    expect(key).toMatch(VALID_KV_KEY);
    expect(key.startsWith("telegram=3A")).toBe(true);
    expect(kvKey(`${long}!`)).not.toBe(key);
    expect(fromKvKey(key)).toBeUndefined();
  });

  test.prop([fc.string({ unit: fc.constantFrom("\ud800", "\udc00", "\ufffd", "a", ".", ":") }), fc.string({ unit: fc.constantFrom("\ud800", "\udc00", "\ufffd", "a", ".", ":") })], { numRuns: 1000 })(
    "is injective even on lone surrogates and long keys",
    (a, b) => {
      if (a === b) return;
      expect(kvKey(a)).not.toBe(kvKey(b));
      expect(kvKey(a.repeat(60))).not.toBe(kvKey(b.repeat(60)));
    },
  );
});
