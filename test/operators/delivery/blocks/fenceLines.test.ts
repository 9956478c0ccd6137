import { describe, expect, it } from "vitest";
import type { Fence } from "../../../../operators/delivery/blocks/breakScan.js";
import { closeLine, reopenLine } from "../../../../operators/delivery/blocks/fenceLines.js";

const fence: Fence = { start: 0, indent: "", marker: "```", openLine: "```ts", bodyStart: 6, end: Number.POSITIVE_INFINITY, closeStart: -1 };

describe("closeLine", () => {
  it("is the fence's indent and marker", () => {
    expect(closeLine(fence)).toBe("```");
    expect(closeLine({ ...fence, indent: "  ", marker: "~~~~" })).toBe("  ~~~~");
  });
});

describe("reopenLine", () => {
  it("the opener line when it fits beside the closer and a character, else the bare marker, else nothing", () => {
    expect(reopenLine(fence, 11)).toBe("```ts");
    expect(reopenLine(fence, 10)).toBe("```");
    expect(reopenLine(fence, 9)).toBe("```");
    expect(reopenLine(fence, 8)).toBeUndefined();
  });
});
