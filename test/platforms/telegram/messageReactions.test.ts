import { describe, expect, it } from "vitest";
import { MessageReactions, reactionCall } from "../../../src/platforms/telegram/messageReactions.js";

describe("reactionCall", () => {
  it("an add replaces the bot's one reaction; the same one again is no call", () => {
    expect(reactionCall(undefined, "add", "👀")).toEqual({ set: ["👀"] });
    expect(reactionCall("👀", "add", "🤔")).toEqual({ set: ["🤔"] });
    expect(reactionCall("🤔", "add", "🤔")).toEqual({ skip: "unchanged" });
  });

  it("a remove clears only the reaction shown; the status machine's remove of the last one after adding the next is no call", () => {
    expect(reactionCall("👍", "remove", "👍")).toEqual({ set: [] });
    expect(reactionCall("🤔", "remove", "👀")).toEqual({ skip: "not_shown" });
    expect(reactionCall(undefined, "remove", "👀")).toEqual({ skip: "not_shown" });
  });
});

describe("MessageReactions", () => {
  it("remembers what each message shows, forgetting a cleared one", () => {
    const reactions = new MessageReactions();
    reactions.set("1:5", "👀");
    expect(reactions.shown("1:5")).toBe("👀");
    reactions.set("1:5", undefined);
    expect(reactions.shown("1:5")).toBeUndefined();
  });

  it("forgets the oldest past 10,000 messages", () => {
    const reactions = new MessageReactions();
    for (let i = 0; i <= 10_000; i++) reactions.set(`1:${i}`, "👀");
    expect(reactions.shown("1:0")).toBeUndefined();
    expect(reactions.shown("1:1")).toBe("👀");
    expect(reactions.shown("1:10000")).toBe("👀");
  });
});
