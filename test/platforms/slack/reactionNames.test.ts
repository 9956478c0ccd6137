import { describe, expect, it } from "vitest";
import { DONE_FACES } from "../../../operators/delivery/status/statusReactions.js";
import { FALLBACK_REACTION, slackReactionName } from "../../../src/platforms/slack/reactionNames.js";
import { STANDARD_EMOJI } from "../../fakes/slack/index.js";

describe("slackReactionName (§3.6)", () => {
  it("names upstream's table", () => {
    const table: [string, string][] = [
      ["👀", "eyes"], ["🤔", "thinking_face"], ["🔥", "fire"], ["👨‍💻", "technologist"], ["⚡", "zap"], ["🆗", "ok"], ["😱", "scream"],
      ["🚫", "no_entry_sign"], ["😊", "blush"], ["😎", "sunglasses"], ["🫡", "saluting_face"], ["🤓", "nerd_face"], ["😏", "smirk"],
      ["✌️", "v"], ["💪", "muscle"], ["🦾", "mechanical_arm"], ["🥱", "yawning_face"], ["😨", "fearful"], ["✅", "white_check_mark"],
      ["❌", "x"], ["🔧", "wrench"], ["🎤", "microphone"],
    ];
    for (const [emoji, name] of table) expect(slackReactionName(emoji), emoji).toBe(name);
  });

  it("covers every default status emoji and mood face", () => {
    for (const emoji of ["👀", "🤔", "🔥", "👨‍💻", "⚡", "🆗", "😱", ...DONE_FACES]) expect(slackReactionName(emoji), emoji).not.toBe(FALLBACK_REACTION);
  });

  it("falls back to grey_question, as upstream (custom emoji, the STT ⚠️)", () => {
    expect(slackReactionName("⚠️")).toBe("grey_question");
    expect(slackReactionName("🚀")).toBe("grey_question");
    expect(slackReactionName("")).toBe("grey_question");
  });

  it("gives only names Slack knows (the fake's standard list)", () => {
    for (const emoji of ["👀", "🤔", "🔥", "👨‍💻", "⚡", "🆗", "😱", "🚫", ...DONE_FACES, "✅", "❌", "🔧", "🎤", "⚠️"]) {
      expect(STANDARD_EMOJI.has(slackReactionName(emoji)), emoji).toBe(true);
    }
  });
});
