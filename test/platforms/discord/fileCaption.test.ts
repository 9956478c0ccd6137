import { describe, expect, it } from "vitest";
import { fileCaption } from "../../../src/platforms/discord/fileCaption.js";

describe("fileCaption", () => {
  it("no caption: nothing with the file, nothing after", () => {
    expect(fileCaption("", false, 2000)).toEqual({ with: undefined, after: [] });
  });

  it("a caption of up to the limit goes with the file", () => {
    expect(fileCaption("x".repeat(2000), false, 2000)).toEqual({ with: "x".repeat(2000), after: [] });
  });

  it("a longer one follows the file whole, split as a text send is", () => {
    const caption = `${"a".repeat(1200)}\n${"b".repeat(1200)}`;
    expect(fileCaption(caption, false, 2000)).toEqual({ with: undefined, after: ["a".repeat(1200), "b".repeat(1200)] });
  });

  it("a plain caption counts with its escapes: 1000 stars fit as 2000 characters, 1001 do not", () => {
    expect(fileCaption("*".repeat(1000), true, 2000)).toEqual({ with: "\\*".repeat(1000), after: [] });
    const over = fileCaption("*".repeat(1001), true, 2000);
    expect(over.with).toBeUndefined();
    expect(over.after.join("")).toBe("\\*".repeat(1001));
  });
});
