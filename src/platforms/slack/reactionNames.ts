/** What Slack shows when an emoji has no short name here (upstream's fallback). */
export const FALLBACK_REACTION = "grey_question";

/** Upstream's table (§3.6): the status, mood, tool and STT emoji by their Slack short names. */
const SHORT_NAMES: ReadonlyMap<string, string> = new Map([
  ["👀", "eyes"],
  ["🤔", "thinking_face"],
  ["🔥", "fire"],
  ["👨‍💻", "technologist"],
  ["⚡", "zap"],
  ["🆗", "ok"],
  ["😱", "scream"],
  ["🚫", "no_entry_sign"],
  ["😊", "blush"],
  ["😎", "sunglasses"],
  ["🫡", "saluting_face"],
  ["🤓", "nerd_face"],
  ["😏", "smirk"],
  ["✌", "v"],
  ["💪", "muscle"],
  ["🦾", "mechanical_arm"],
  ["🥱", "yawning_face"],
  ["😨", "fearful"],
  ["✅", "white_check_mark"],
  ["❌", "x"],
  ["🔧", "wrench"],
  ["🎤", "microphone"],
]);

/**
 * The short name `reactions.add` / `reactions.remove` take for an emoji (Slack takes names, not
 * emoji): upstream's table, and `grey_question` for anything else — a custom `[reactions.emojis]`
 * choice, the STT `⚠️` — as upstream shows it. Variation selectors (U+FE0F) are ignored, so `✌️`
 * and `✌` are both `v`.
 */
export function slackReactionName(emoji: string): string {
  return SHORT_NAMES.get(emoji.replaceAll("\u{FE0F}", "")) ?? FALLBACK_REACTION;
}
