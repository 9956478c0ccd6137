import type { TelegramConfig } from "../../config/sections/telegram.js";
import type { IngressRules } from "../platformPort.js";

/** How long a stranger's "not on this bot's trusted list" answer silences the next ones: an hour. */
export const TELEGRAM_DENY_ECHO_WINDOW_MS = 3_600_000;

/**
 * The skip and trust rules of `[telegram]`'s events: its user and channel lists and bot rules, the
 * deny answer at most once per sender an hour, and @mention gating in groups by the bot's own
 * username — read per event, since it is known only once `getMe` answered.
 */
export function telegramIngress(config: TelegramConfig, botUsername: () => string | undefined): IngressRules {
  return {
    allow_all_users: config.allow_all_users,
    allowed_users: config.allowed_users,
    allow_all_channels: config.allow_all_channels,
    allowed_channels: config.allowed_channels,
    allow_bot_messages: config.allow_bot_messages,
    trusted_bot_ids: config.trusted_bot_ids,
    denyEchoWindowMs: TELEGRAM_DENY_ECHO_WINDOW_MS,
    get bot_username() {
      return botUsername();
    },
  };
}
