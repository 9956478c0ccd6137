import { ConfigError } from "../../config/errors.js";

/** Upstream's line when Discord refuses the token (§2.1). */
export const TOKEN_REJECTED_TEXT = "Discord rejected bot token. Verify your bot_token in config.toml is correct and has not been reset.";

/**
 * Discord answered 401 at start-up: the token is wrong or was reset. A `ConfigError` naming the
 * key, so `turnstream run` prints one line and stops; the token itself is never in it.
 */
export class DiscordTokenRejectedError extends ConfigError {
  constructor(options: { readonly cause?: unknown } = {}) {
    super([{ path: "discord.bot_token", message: TOKEN_REJECTED_TEXT }], options);
  }
}
