import { describe, expect, it } from "vitest";
import { boundedJson, MAX_DEPTH } from "../../../../operators/ingress/webhook/boundedJson.js";

describe("boundedJson", () => {
  it("writes a value as compact JSON, as JSON.stringify would, when it fits", () => {
    const value = { a: [1, 2.5, true, null, "x\ny"], "k\"ey": { nested: {} }, empty: [] };
    expect(boundedJson(value, 1_000)).toBe(JSON.stringify(value));
    expect(boundedJson("text", 100)).toBe('"text"');
    expect(boundedJson(42, 100)).toBe("42");
    expect(boundedJson(null, 100)).toBe("null");
  });

  it("cuts at the bound and ends in …, never longer than the bound", () => {
    const value = { items: Array.from({ length: 100 }, (_, i) => `item-${i}`) };
    const text = boundedJson(value, 50);
    expect(text).toHaveLength(50);
    expect(text.endsWith("…")).toBe(true);
    expect(text.slice(0, -1)).toBe(JSON.stringify(value).slice(0, 49));
    expect(boundedJson("x".repeat(1_000), 10)).toBe('"xxxxxxxx…');
  });

  it("writes tables and lists deeper than MAX_DEPTH as …", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const text = boundedJson(deep, 100_000);
    expect(text).toBe(`${"[".repeat(MAX_DEPTH)}…${"]".repeat(MAX_DEPTH)}`);
  });

  it("reads no more of a value than the text it writes: a million items cost what the first few do", () => {
    let reads = 0;
    const items = new Proxy(new Array<number>(1_000_000).fill(7), {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    expect(boundedJson({ items }, 100)).toHaveLength(100);
    expect(reads).toBeLessThan(60);
    const long = "y".repeat(5_000_000);
    expect(boundedJson({ long }, 100)).toHaveLength(100);
  });
});
