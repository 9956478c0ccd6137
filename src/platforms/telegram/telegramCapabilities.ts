import type { PlatformCapabilities } from "../../../operators/ingress/frames/helloFrame.js";
import type { TelegramConfig } from "../../config/sections/telegram.js";

/** Telegram's limit on a text message, in characters. */
export const TELEGRAM_MESSAGE_LIMIT = 4096;

/**
 * What Telegram can do, as a gateway hello would state it, fixed by `[telegram]`: every call is
 * answered (sends, edits and deletes acked with their message ids), reactions, edits and deletes of
 * the bot's own messages, "typing…" while a turn runs, and 4096 characters a message. Text turns
 * stream by editing one message when `streaming` is on, opening with the placeholder.
 */
export function telegramCapabilities(config: Pick<TelegramConfig, "streaming">): PlatformCapabilities {
  return {
    sendAck: true,
    editAck: true,
    deleteAck: true,
    supportsTargetMessageId: true,
    supportsReactions: true,
    supportsAttachmentMaterialization: false,
    supportsConversationRegistry: false,
    supportsPersistentConversationSend: false,
    canEdit: true,
    canDelete: true,
    streamingMode: config.streaming ? "edit" : "disabled",
    showStreamingPlaceholder: true,
    messageLimit: TELEGRAM_MESSAGE_LIMIT,
    messageLimitUnit: "characters",
    statusBackend: "reactions",
    typingIndicator: true,
  };
}
