import { describe, expect, it } from "vitest";
import { DONE_FACES } from "../../../operators/delivery/status/statusReactions.js";
import { TELEGRAM_REACTION_EMOJI, telegramReaction } from "../../../src/platforms/telegram/reactionEmoji.js";
import { REACTION_EMOJI } from "../../fakes/telegram/reactionEmoji.js";

describe("telegramReaction", () => {
  it("is the documented list the fake Bot API enforces", () => {
    expect([...TELEGRAM_REACTION_EMOJI].sort()).toEqual([...REACTION_EMOJI].sort());
  });

  it("shows every default status emoji, 🆗 as 👍 (upstream)", () => {
    const defaults = ["👀", "🤔", "🔥", "👨‍💻", "⚡", "🆗", "😱", "🥱", "😨"];
    expect(defaults.map(telegramReaction)).toEqual(["👀", "🤔", "🔥", "👨‍💻", "⚡", "👍", "😱", "🥱", "😨"]);
  });

  it("drops variation selectors Telegram's list has none of", () => {
    expect(telegramReaction("❤️")).toBe("❤");
    expect(telegramReaction("✍️")).toBe("✍");
  });

  it("has none for an emoji Telegram does not take, nor for the mood faces that would replace the done emoji", () => {
    expect(telegramReaction("✅")).toBeUndefined();
    expect(telegramReaction("🚀")).toBeUndefined();
    for (const face of DONE_FACES) expect(telegramReaction(face)).toBeUndefined();
  });
});
