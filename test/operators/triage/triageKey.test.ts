import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { triageKey } from "../../../operators/triage/triageKey.js";

const part = fc.oneof(fc.string({ unit: fc.constantFrom(":", "%", "3", "A", "a") }), fc.string({ unit: "binary" }));

describe("triageKey", () => {
  it("is platform:channel, the same in every thread of the channel", () => {
    expect(triageKey({ platform: "telegram", channel: { id: "c1", type: "group" } })).toBe("telegram:c1");
    expect(triageKey({ platform: "telegram", channel: { id: "c1", type: "group", thread_id: "t1" } })).toBe("telegram:c1");
  });

  it("escapes ':' and '%', so a platform with ':' cannot share another platform's channel allowance", () => {
    expect(triageKey({ platform: "a:b", channel: { id: "c", type: "dm" } })).toBe("a%3Ab:c");
    expect(triageKey({ platform: "a", channel: { id: "b:c", type: "dm" } })).toBe("a:b%3Ac");
  });

  test.prop([part, part, part, part], { numRuns: 3_000 })("gives distinct (platform, channel) pairs distinct keys", (p1, c1, p2, c2) => {
    fc.pre(p1 !== p2 || c1 !== c2);
    expect(triageKey({ platform: p1, channel: { id: c1, type: "dm" } })).not.toBe(triageKey({ platform: p2, channel: { id: c2, type: "dm" } }));
  });
});
