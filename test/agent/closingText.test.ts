import { describe, expect, it } from "vitest";
import { closingAction } from "../../src/agent/closingText.js";

const context = { bubblesSent: 0, silentToken: "NO_REPLY", schema: "openab.turn.v1", maxBubbleChars: 0 };

describe("closingAction: a model answer without tool calls", () => {
  it("envelope mode wraps the text as one bubble", () => {
    expect(closingAction("envelope", "  sure\nsee you ", context)).toStrictEqual({
      kind: "envelope",
      envelope: { schema: "openab.turn.v1", messages: [{ id: "bubble_1", text: "sure\nsee you" }], next: { type: "stop" } },
    });
  });

  it("envelope mode: a text too long for one bubble goes back to the model instead", () => {
    const action = closingAction("envelope", "x".repeat(13), { ...context, maxBubbleChars: 12 });
    expect(action).toStrictEqual({
      kind: "too_long",
      note: "Your answer was not delivered: it is 13 characters, over the 12-character limit for one message. Send it with the reply tool instead, split between sentences into several messages.",
    });
    expect(closingAction("envelope", "x".repeat(12), { ...context, maxBubbleChars: 12 }).kind).toBe("envelope");
    expect(closingAction("sequential", "x".repeat(13), { ...context, maxBubbleChars: 12 }).kind).toBe("bubble");
  });

  it("envelope mode sends nothing for empty text", () => {
    expect(closingAction("envelope", " \n", context)).toStrictEqual({ kind: "nothing", reason: "empty" });
  });

  it("sequential mode, nothing sent yet: the text is the turn's one bubble", () => {
    expect(closingAction("sequential", " the answer ", context)).toStrictEqual({ kind: "bubble", text: "the answer" });
  });

  it("sequential mode after a reply: the closing text is dropped", () => {
    expect(closingAction("sequential", "I replied!", { ...context, bubblesSent: 2 })).toStrictEqual({ kind: "nothing", reason: "already_replied" });
    expect(closingAction("sequential", "", { ...context, bubblesSent: 1 })).toStrictEqual({ kind: "nothing", reason: "already_replied" });
  });

  it("sequential mode with neither a reply nor text: the silent token, or nothing when there is none", () => {
    expect(closingAction("sequential", "", context)).toStrictEqual({ kind: "silent_token", token: "NO_REPLY" });
    expect(closingAction("sequential", "  ", { ...context, silentToken: "" })).toStrictEqual({ kind: "nothing", reason: "empty" });
  });
});
