import type { InlineKeyboardMarkup } from "grammy/types";

/** How many messages' buttons an edge remembers (the oldest forgotten first). */
const REMEMBERED = 10_000;

/**
 * The buttons this edge last put on each of the bot's messages (`chat:message`), bounded. Telegram's
 * `editMessageText` without `reply_markup` takes a message's buttons away, while an edit that names
 * no `choices` is to leave them: such an edit sends back what is remembered here. An edit through
 * another edge than the one that put the buttons there finds nothing, and the buttons go.
 */
export class MessageKeyboards {
  readonly #shown = new Map<string, InlineKeyboardMarkup>();

  shown(key: string): InlineKeyboardMarkup | undefined {
    return this.#shown.get(key);
  }

  /** Records what the message shows after a call went through (`undefined`: no buttons). */
  set(key: string, keyboard: InlineKeyboardMarkup | undefined): void {
    this.#shown.delete(key);
    if (keyboard === undefined) return;
    this.#shown.set(key, keyboard);
    if (this.#shown.size > REMEMBERED) this.#shown.delete(this.#shown.keys().next().value!);
  }
}
