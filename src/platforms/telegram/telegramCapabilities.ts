import type { PlatformCapabilities } from "../../../operators/ingress/frames/helloFrame.js";
import type { TelegramConfig } from "../../config/sections/telegram.js";
import { nativeCapabilities } from "../nativeCapabilities.js";

/** Telegram's limit on a text message, in characters. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

/**
 * What Telegram can do, as a gateway hello would state it, fixed by `[telegram]`: every call is
 * answered (sends, edits and deletes acked with their message ids), reactions, edits and deletes of
 * the bot's own messages, "typing…" while a turn runs, buttons (an inline keyboard, whose taps come
 * back as callback queries), files posted (a photo or a document), and 4096 characters a message. Text turns stream by editing one
 * message when `streaming` is on, opening with the placeholder.
 */
export function telegramCapabilities(config: Pick<TelegramConfig, "streaming">): PlatformCapabilities {
  return nativeCapabilities({ messageLimit: TELEGRAM_MESSAGE_LIMIT, streaming: config.streaming, typing: true, buttons: true, outboundFiles: true });
}
