import { ConfigError } from "../../config/errors.js";

/**
 * Slack answered `auth.test` at start-up with an error that says the bot token is no good
 * (`invalid_auth`, `token_revoked`…): a `ConfigError` naming the key and Slack's error, so
 * `turnstream run` prints one line and exits 2; the token itself is never in it.
 */
export class SlackTokenRejectedError extends ConfigError {
  constructor(error: string, options: { readonly cause?: unknown } = {}) {
    super([{ path: "slack.bot_token", message: `rejected by Slack (${error})` }], options);
  }
}
