import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { OMITTED, untrustedJson } from "../../../../operators/ingress/frames/untrustedJson.js";

describe("untrustedJson", () => {
  it("keeps small clean data as it is", () => {
    for (const data of [undefined, null, 5, true, "upstream 503", { message: "upstream 503" }, { sessionId: "s9", message: 5 }, [1, "two", { three: 3 }]]) {
      expect(untrustedJson(data)).toEqual(data === undefined ? OMITTED : data);
    }
  });

  it("cleans every string and key; a string keeps its newlines, a key is one line", () => {
    expect(untrustedJson({ "k\u001b[31m\ney": "line 1\u0000\nline 2\u202e" })).toEqual({ "k ey": "line 1\nline 2" });
  });

  it("bounds strings by one shared budget", () => {
    const out = untrustedJson({ a: "x".repeat(1_000_000), b: "y".repeat(1_000_000), c: "z".repeat(1_000_000) }) as Record<string, string>;
    expect(out.a?.length).toBeLessThanOrEqual(500);
    expect(out.b?.length).toBeLessThanOrEqual(500);
    expect(out).not.toHaveProperty("c"); // its key is past the budget too
    expect(out[OMITTED]).toBe(OMITTED);
    expect(JSON.stringify(out).length).toBeLessThan(1_100);
  });

  it("caps nesting and entries", () => {
    expect(untrustedJson({ a: { b: { c: { d: 1 } } } })).toEqual({ a: { b: { c: OMITTED } } });
    const many = untrustedJson(Array.from({ length: 100_000 }, (_, i) => i)) as unknown[];
    expect(many).toHaveLength(33);
    expect(many.at(-1)).toBe(OMITTED);
    const keys = untrustedJson(Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, i]))) as Record<string, unknown>;
    expect(Object.keys(keys)).toHaveLength(33);
  });

  it("keeps a __proto__ key from JSON.parse as a plain key", () => {
    const out = untrustedJson(JSON.parse('{"__proto__":{"polluted":true}}')) as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test.prop([fc.jsonValue({ maxDepth: 6 })], { numRuns: 1_000 })("any JSON value becomes a small clean one", (value) => {
    const out = untrustedJson(value);
    // eslint-disable-next-line no-control-regex
    expect(stringsOf(out).filter((text) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(text))).toEqual([]);
    expect(JSON.stringify(out).length).toBeLessThan(4_000);
  });
});

/** Every string and key in a JSON value. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === "object" && value !== null) return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
  return [];
}
