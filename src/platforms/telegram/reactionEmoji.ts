import { DONE_FACES } from "../../../operators/delivery/status/statusReactions.js";

/**
 * The emoji a bot may set with `setMessageReaction` (`ReactionTypeEmoji.emoji`, Bot API 10, as
 * @grammyjs/types 5.0.0 lists them); Telegram refuses any other with `REACTION_INVALID`. The code
 * points are exact: "❤" is U+2764 without a variation selector, "👨‍💻" and "❤‍🔥" are joined with
 * U+200D. (The fake Bot API keeps its own copy, test/fakes/telegram/reactionEmoji.ts.)
 */
export const TELEGRAM_REACTION_EMOJI: ReadonlySet<string> = new Set([
  "👍", "👎", "❤", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩", "🤮", "💩",
  "🙏", "👌", "🕊", "🤡", "🥱", "🥴", "😍", "🐳", "❤‍🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌", "🏆",
  "💔", "🤨", "😐", "🍓", "🍾", "💋", "🖕", "😈", "😴", "😭", "🤓", "👻", "👨‍💻", "👀", "🎃",
  "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄", "☃", "💅", "🤪", "🗿", "🆒", "💘", "🙉",
  "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷‍♂", "🤷", "🤷‍♀", "😡",
]);

/** Configured emoji Telegram does not take, and the one upstream shows instead. */
const SUBSTITUTES: ReadonlyMap<string, string> = new Map([["🆗", "👍"]]);

const MOOD_FACES: ReadonlySet<string> = new Set(DONE_FACES);

/**
 * The reaction Telegram shows for a configured status emoji, or undefined when it has none (the
 * reaction is then skipped, never sent to be refused). Variation selectors (U+FE0F) are dropped,
 * since Telegram's list has none ("❤️" is "❤"); `🆗` becomes `👍`, as upstream. The mood face a
 * finished turn adds after its done emoji is skipped, as upstream: a bot keeps one reaction per
 * message, and the face would replace the done emoji.
 */
export function telegramReaction(emoji: string): string | undefined {
  if (isMoodFace(emoji)) return undefined;
  const bare = emoji.replaceAll("\u{FE0F}", "");
  const shown = SUBSTITUTES.get(bare) ?? bare;
  return TELEGRAM_REACTION_EMOJI.has(shown) ? shown : undefined;
}

/** A mood face a finished turn adds after its done emoji: never shown on Telegram, by design (not for want of an emoji). */
export function isMoodFace(emoji: string): boolean {
  return MOOD_FACES.has(emoji);
}
