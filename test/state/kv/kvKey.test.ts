import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { fromKvKey, kvKey } from "../../../src/state/kv/kvKey.js";

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
    expect(fromKvKey(encoded)).toBe(key);
  });
});
