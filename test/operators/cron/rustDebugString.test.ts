import { describe, expect, it } from "vitest";
import { rustDebugString } from "../../../operators/cron/rustDebugString.js";

describe("rustDebugString: Rust's `{:?}` of a &str", () => {
  it.each([
    ["abc", '"abc"'],
    ["", '""'],
    ['say "hi"', '"say \\"hi\\""'],
    ["back\\slash", '"back\\\\slash"'],
    ["it's", '"it\'s"'],
    ["\n\t\r\0", '"\\n\\t\\r\\0"'],
    ["\u0007\u001b\u007f\u0085", '"\\u{7}\\u{1b}\\u{7f}\\u{85}"'],
    ["a\u00a0b\u2028c\u200bd\ufeff", '"a\\u{a0}b\\u{2028}c\\u{200b}d\\u{feff}"'],
    ["e\u0301", '"e\\u{301}"'],
    ["caf\u00e9 \u{1F600} 台北", '"caf\u00e9 \u{1F600} 台北"'],
    ["\ud800", '"\\u{d800}"'],
  ])("%j → %s", (text, debug) => {
    expect(rustDebugString(text)).toBe(debug);
  });
});
