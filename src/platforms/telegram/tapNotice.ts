/** Telegram's bound on `answerCallbackQuery`'s text, in characters. */
export const TAP_NOTICE_LIMIT = 200;

/**
 * An `answer_tap` notice as Telegram takes it: up to 200 characters, a longer one cut with "…".
 * Cut by UTF-16 units, never inside a surrogate pair, so it fits whether Telegram counts code
 * points or UTF-16 units.
 */
export function tapNotice(text: string): string {
  if (text.length <= TAP_NOTICE_LIMIT) return text;
  let cut = "";
  for (const char of text) {
    if (cut.length + char.length > TAP_NOTICE_LIMIT - 1) break;
    cut += char;
  }
  return `${cut}…`;
}
