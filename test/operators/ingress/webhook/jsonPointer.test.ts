import { describe, expect, it } from "vitest";
import { JsonPointerError, parseJsonPointer, resolveJsonPointer } from "../../../../operators/ingress/webhook/jsonPointer.js";

describe("parseJsonPointer (RFC 6901)", () => {
  it("reads the RFC's examples, escapes undone in order (~1 first, then ~0)", () => {
    expect(parseJsonPointer("")).toEqual([]);
    expect(parseJsonPointer("/foo")).toEqual(["foo"]);
    expect(parseJsonPointer("/foo/0")).toEqual(["foo", "0"]);
    expect(parseJsonPointer("/")).toEqual([""]);
    expect(parseJsonPointer("/a~1b")).toEqual(["a/b"]);
    expect(parseJsonPointer("/m~0n")).toEqual(["m~n"]);
    expect(parseJsonPointer("/~01")).toEqual(["~1"]);
    expect(parseJsonPointer("/ ")).toEqual([" "]);
  });

  it("refuses a pointer without its leading / and a ~ not followed by 0 or 1", () => {
    expect(() => parseJsonPointer("id")).toThrow(JsonPointerError);
    expect(() => parseJsonPointer("/a~2")).toThrow('"/a~2" is not a JSON pointer ("~" is followed by 0 or 1: "~0" is "~", "~1" is "/")');
    expect(() => parseJsonPointer("/a~")).toThrow(JsonPointerError);
  });

  it("is linear in its input: a pointer of 200,000 steps parses at once", () => {
    expect(parseJsonPointer("/a".repeat(200_000))).toHaveLength(200_000);
    expect(() => parseJsonPointer(`${"/~0".repeat(100_000)}~`)).toThrow(JsonPointerError);
  });
});

describe("resolveJsonPointer", () => {
  // RFC 6901 §5's document.
  const document = JSON.parse(`{"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\\\j": 5, "k\\"l": 6, " ": 7, "m~n": 8}`) as unknown;

  it("finds the RFC's values", () => {
    const at = (pointer: string) => resolveJsonPointer(parseJsonPointer(pointer), document);
    expect(at("")).toEqual({ found: true, value: document });
    expect(at("/foo")).toEqual({ found: true, value: ["bar", "baz"] });
    expect(at("/foo/0")).toEqual({ found: true, value: "bar" });
    for (const [pointer, value] of [["/", 0], ["/a~1b", 1], ["/c%d", 2], ["/e^f", 3], ["/g|h", 4], ["/i\\j", 5], ['/k"l', 6], ["/ ", 7], ["/m~0n", 8]] as const) {
      expect(at(pointer)).toEqual({ found: true, value });
    }
  });

  it("finds nothing at a missing key, an index out of range or not written as RFC 6901 writes it, or a step into a scalar", () => {
    const at = (pointer: string) => resolveJsonPointer(parseJsonPointer(pointer), document);
    for (const pointer of ["/nope", "/foo/2", "/foo/-", "/foo/01", "/foo/ 1", "/foo/0/x", "/foo/length", "/constructor", "/__proto__"]) expect(at(pointer)).toEqual({ found: false });
  });

  it("finds null and false as values", () => {
    expect(resolveJsonPointer(["a"], { a: null })).toEqual({ found: true, value: null });
    expect(resolveJsonPointer(["a"], { a: false })).toEqual({ found: true, value: false });
  });
});
