import { describe, expect, it } from "vitest";
import type { Question } from "../../../operators/ask/question.js";
import { outcomeLine, questionBody, questionHint, toggleLabel } from "../../../operators/ask/questionText.js";

const question: Question = {
  header: "Deploy",
  text: "Where to?",
  options: [
    { label: "Staging", description: "safe" },
    { label: "Production", description: "" },
  ],
  multiSelect: false,
};

describe("question text", () => {
  it("numbers the options when no buttons carry them", () => {
    expect(questionBody(question, "numbered")).toBe("❓ Deploy\nWhere to?\n1. Staging — safe\n2. Production");
  });

  it("lists only described options under buttons, and the place among several", () => {
    expect(questionBody(question, "buttons", { index: 1, total: 3 })).toBe("❓ Deploy (2/3)\nWhere to?\n• Staging — safe");
    expect(questionBody({ ...question, header: "" }, "buttons", { index: 0, total: 1 })).toBe("❓\nWhere to?\n• Staging — safe");
  });

  it("says how to answer and who may", () => {
    expect(questionHint(question, "numbered", "Ann")).toBe("Reply with a number or an option's name. Only Ann can answer.");
    expect(questionHint({ ...question, multiSelect: true }, "numbered", undefined)).toBe("Reply with the numbers of the options you choose (1, 3).");
    expect(questionHint(question, "buttons", undefined)).toBe("Tap an option.");
    expect(questionHint({ ...question, multiSelect: true }, "buttons", "Ann")).toBe("Tap the options you choose, then Done. Only Ann can answer.");
  });

  it("says how it ended", () => {
    expect(outcomeLine({ kind: "answered", labels: ["Staging"], by: "Ann" })).toBe("→ Staging (Ann)");
    expect(outcomeLine({ kind: "timeout", fallback: "Reject" })).toBe("⏱️ No answer in time: Reject.");
    expect(outcomeLine({ kind: "timeout" })).toBe("⏱️ No answer in time.");
    expect(outcomeLine({ kind: "cancelled" })).toBe("✖️ Cancelled.");
    expect(outcomeLine({ kind: "expired" })).toBe("⌛ Expired.");
  });

  it("ticks a chosen option", () => {
    expect(toggleLabel("Staging", true)).toBe("✓ Staging");
    expect(toggleLabel("Staging", false)).toBe("Staging");
  });
});
