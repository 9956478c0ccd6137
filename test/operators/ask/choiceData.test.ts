import { describe, expect, it } from "vitest";
import { choiceData, parseChoiceData } from "../../../operators/ask/choiceData.js";

describe("choiceData", () => {
  it("names the question and the option, within Telegram's 64 bytes", () => {
    expect(choiceData("a1b2c3d4", 2)).toBe("q:a1b2c3d4:2");
    expect(choiceData("a1b2c3d4", "done")).toBe("q:a1b2c3d4:done");
    expect(Buffer.byteLength(choiceData("z".repeat(24), "done"))).toBeLessThanOrEqual(64);
  });

  it("reads back what it wrote", () => {
    expect(parseChoiceData(choiceData("k9", 0))).toEqual({ askId: "k9", option: 0 });
    expect(parseChoiceData(choiceData("k9", "done"))).toEqual({ askId: "k9", option: "done" });
  });

  it.each(["", "q:", "q:abc", "q:abc:", "q:ABC:1", "q:abc:-1", "q:abc:123", "x:abc:1", "q:abc:1:2", `q:${"a".repeat(25)}:1`, "q:abc:1\n"])("refuses data the broker never makes: %j", (data) => {
    expect(parseChoiceData(data)).toBeUndefined();
  });
});
