import { describe, expect, it } from "vitest";
import { parseAnswer } from "../../../operators/ask/parseAnswer.js";
import type { Question } from "../../../operators/ask/question.js";

const single: Question = { header: "Permission", text: "Run it?", options: [{ label: "Allow once", description: "" }, { label: "Allow always", description: "" }, { label: "Reject", description: "" }], multiSelect: false };
const multi: Question = { ...single, multiSelect: true };

describe("parseAnswer", () => {
  it.each([
    ["2", [1]],
    [" 3 ", [2]],
    ["1.", [0]],
    ["reject", [2]],
    ["Allow ALWAYS", [1]],
    ["@turnstream_bot 2", [1]],
    ["<@123456> allow once", [0]],
  ])("reads %j as %j", (text, chosen) => {
    expect(parseAnswer(text, single)).toEqual(chosen);
  });

  it.each(["0", "4", "12", "1, 2", "yes", "", "   ", "2 please", "allow"])("does not read %j as an answer to a single-choice question", (text) => {
    expect(parseAnswer(text, single)).toBeUndefined();
  });

  it.each([
    ["1, 3", [0, 2]],
    ["3 1", [0, 2]],
    ["2,2", [1]],
    ["2", [1]],
    ["reject", [2]],
  ])("reads %j as %j for a multi-select question", (text, chosen) => {
    expect(parseAnswer(text, multi)).toEqual(chosen);
  });

  it("refuses a number out of range among several", () => {
    expect(parseAnswer("1, 4", multi)).toBeUndefined();
  });

  it("reads nothing past its bound (a long message is never an answer)", () => {
    expect(parseAnswer(`${" ".repeat(300)}1`, single)).toBeUndefined();
    expect(parseAnswer("1".padStart(200, " "), single)).toEqual([0]);
  });
});
