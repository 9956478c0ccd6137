import type { TelegramConfig } from "../../../src/config/sections/telegram.js";
import type { FakeBotApi } from "../../fakes/telegram/index.js";

/** A resolved `[telegram]` pointed at the fake Bot API: polling, everyone allowed unless `overrides` say otherwise. */
export function telegramConfig(api: FakeBotApi, overrides: Partial<TelegramConfig> = {}): TelegramConfig {
  return {
    bot_token: api.token,
    trusted_source_only: false,
    rich_messages: true,
    streaming: false,
    webhook_path: "/webhook/telegram",
    allow_all_users: true,
    allowed_users: [],
    api_root: api.root,
    mode: "polling",
    allow_all_channels: true,
    allowed_channels: [],
    allow_bot_messages: false,
    trusted_bot_ids: [],
    ...overrides,
  };
}
