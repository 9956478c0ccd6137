// OpenAB's `[telegram]` sections byte for byte as its operator guide documents them (upstream
// docs/telegram.md, "First-class `[telegram]` config"): an OpenAB file must pass turnstream's
// check unchanged.

/** "Minimal required — only `bot_token` is needed to activate the adapter". */
export const OPENAB_TELEGRAM_MINIMAL = `[telegram]
bot_token = "\${TELEGRAM_BOT_TOKEN}"    # or use aws-sm:// secret ref (see below)
`;

/** "Full example with all available fields". */
export const OPENAB_TELEGRAM_FULL = `[telegram]
bot_token           = "\${TELEGRAM_BOT_TOKEN}"   # \${} env expansion supported
secret_token        = "\${TELEGRAM_SECRET_TOKEN}" # webhook signature validation
trusted_source_only = true     # reject requests outside Telegram's IP subnets
rich_messages       = true     # sendRichMessage rendering (default true)
streaming           = true     # override; defaults to follow rich_messages
webhook_path        = "/webhook/telegram"
allowed_users       = ["12345678"]  # restrict to specific Telegram user IDs
# allow_all_users   = true           # set true to allow everyone (default: false)
`;

/** "User Access Control". */
export const OPENAB_TELEGRAM_ACCESS = `[telegram]
bot_token     = "\${TELEGRAM_BOT_TOKEN}"
allowed_users = ["12345678", "87654321"]   # only these user IDs can chat
`;

/** `OPENAB_TELEGRAM_FULL` resolved, with these tokens where its `${VAR}`s stood: a webhook, as upstream runs it. */
export function openabTelegramFullResolved(botToken: string, secretToken: string): Record<string, unknown> {
  return {
    bot_token: botToken,
    secret_token: secretToken,
    trusted_source_only: true,
    rich_messages: true,
    streaming: true,
    webhook_path: "/webhook/telegram",
    allow_all_users: false,
    allowed_users: ["12345678"],
    api_root: "https://api.telegram.org",
    mode: "webhook",
    webhook_listen: "0.0.0.0:8080",
    allow_all_channels: true,
    allowed_channels: [],
    allow_bot_messages: false,
    trusted_bot_ids: [],
  };
}
