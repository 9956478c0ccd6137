/**
 * The emoji a bot may set with `setMessageReaction` (`ReactionTypeEmoji.emoji`), exactly as the Bot API
 * documents them (Bot API 10, checked against @grammyjs/types 5.0.0). Telegram answers any other emoji with
 * 400 `Bad Request: REACTION_INVALID`. The code points are exact: "❤" is U+2764 without a variation
 * selector, "👨‍💻" and "❤‍🔥" are joined with U+200D.
 */
export const REACTION_EMOJI: ReadonlySet<string> = new Set([
  "👍", "👎", "❤", "🔥", "🥰", "👏", "😁", "🤔", "🤯", "😱", "🤬", "😢", "🎉", "🤩", "🤮", "💩",
  "🙏", "👌", "🕊", "🤡", "🥱", "🥴", "😍", "🐳", "❤‍🔥", "🌚", "🌭", "💯", "🤣", "⚡", "🍌", "🏆",
  "💔", "🤨", "😐", "🍓", "🍾", "💋", "🖕", "😈", "😴", "😭", "🤓", "👻", "👨‍💻", "👀", "🎃",
  "🙈", "😇", "😨", "🤝", "✍", "🤗", "🫡", "🎅", "🎄", "☃", "💅", "🤪", "🗿", "🆒", "💘", "🙉",
  "🦄", "😘", "💊", "🙊", "😎", "👾", "🤷‍♂", "🤷", "🤷‍♀", "😡",
]);
