import { ConfigError } from "../../config/errors.js";

/**
 * Telegram answered `getMe` with 401 at start-up: the token is wrong or revoked. A `ConfigError`
 * naming the key, so `turnstream run` prints one line and exits 2; the token itself is never in it.
 */
export class BotTokenRejectedError extends ConfigError {
  constructor(options: { readonly cause?: unknown } = {}) {
    super([{ path: "telegram.bot_token", message: "rejected by the Bot API (401)" }], options);
  }
}
