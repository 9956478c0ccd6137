/** Subtypes of a person's message that count as a human taking part (upstream's `is_plain_user_message`). */
const PLAIN_SUBTYPES: ReadonlySet<string> = new Set(["", "me_message", "thread_broadcast", "file_share"]);

/**
 * Whether a human's message resets the bot-turn counters of its thread (§3.3 step 3): a message
 * with text whose subtype is none, `me_message`, `thread_broadcast` or `file_share`. Joins, pins,
 * topic changes and the like say nothing, so they do not reset.
 */
export function isPlainUserMessage(subtype: string, text: string): boolean {
  return text !== "" && PLAIN_SUBTYPES.has(subtype);
}
