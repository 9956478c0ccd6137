import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { validateSubject } from "../../src/bus/subjectMatch.js";
import { fromSubjectToken, maxTokenLength, subjectToken } from "../../src/wire/subjectToken.js";
import { subjects } from "../../src/wire/subjects.js";

/** What a NATS subject token may hold: no separator, wildcard, whitespace or control character. */
const SAFE_TOKEN = /^[A-Za-z0-9_%~-]+$/;

describe("subjectToken", () => {
  it("keeps letters, digits, - and _, escapes every other UTF-8 byte as %XX, and spells the empty string %", () => {
    expect(subjectToken("telegram")).toBe("telegram");
    expect(subjectToken("")).toBe("%");
    expect(subjectToken("a.b *>")).toBe("a%2Eb%20%2A%3E");
    expect(subjectToken("x\u0000y")).toBe("x%00y");
    expect(subjectToken("好")).toBe("%E5%A5%BD");
    expect(subjectToken("line\r\nbreak")).toBe("line%0D%0Abreak");
    expect(subjectToken("\ud800")).toBe("%%D800");
  });

  it("hashes an encoding past maxTokenLength, so a long id cannot overflow nats-server's control line", () => {
    const long = "好".repeat(500);
    const token = subjectToken(long);
    expect(token.length).toBeLessThanOrEqual(maxTokenLength);
    expect(token).toMatch(SAFE_TOKEN);
    expect(token).toContain("~");
    expect(subjectToken(`${long}!`)).not.toBe(token);
    expect(fromSubjectToken(token)).toBeUndefined();
  });

  it("decodes only what it could have made", () => {
    for (const foreign of ["", "a.b", "%zz", "%FF", "%%0041", "a~b"]) expect(fromSubjectToken(foreign)).toBeUndefined();
    expect(fromSubjectToken("%")).toBe("");
  });

  test.prop([fc.string({ unit: "binary" })], { numRuns: 1000 })("makes a valid, safe subject token that decodes back (so no two strings share one)", (value) => {
    const token = subjectToken(value);
    expect(token).toMatch(SAFE_TOKEN);
    expect(() => validateSubject(`turnstream.send.${token}`, { wildcards: false })).not.toThrow();
    if (token.includes("~")) expect(token.length).toBeLessThanOrEqual(maxTokenLength);
    else expect(fromSubjectToken(token)).toBe(value);
  });

  test.prop([fc.string({ unit: fc.constantFrom("\ud800", "\udc00", "\ufffd", "a", ".") }), fc.string({ unit: fc.constantFrom("\ud800", "\udc00", "\ufffd", "a", ".") })], { numRuns: 1000 })(
    "is injective even on lone surrogates and long values",
    (a, b) => {
      const long = (s: string) => s.repeat(40);
      if (a !== b) {
        expect(subjectToken(a)).not.toBe(subjectToken(b));
        expect(subjectToken(long(a))).not.toBe(subjectToken(long(b)));
      }
    },
  );

  it("gives every platform a send subject the filter over all sends matches", () => {
    const names = subjects("acme.prod");
    for (const platform of ["", "a.b", "*", ">", "with space", "nul\u0000", "日本"]) {
      const subject = names.send(platform);
      expect(() => validateSubject(subject, { wildcards: false })).not.toThrow();
      expect(subject.split(".")).toHaveLength(4);
    }
  });
});
