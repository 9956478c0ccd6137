// Which config keys hold secrets, in one list: masking, error wording and the docs test read it.

/** Keys whose values are secrets: never printed, logged or quoted in an error. `*` is any key of that table. */
export const secretKeys: readonly string[] = [
  "gateway.token",
  "dev_gateway.token",
  "bus.token",
  "bus.password",
  "agent.env.*",
  "stt.api_key",
  "telegram.bot_token",
  "telegram.secret_token",
  "discord.bot_token",
  "slack.bot_token",
  "slack.app_token",
  "webhooks.endpoints.*.secret",
];

/** Keys whose values are URLs that may carry credentials: shown with those masked (see redactUrl). */
export const urlKeys: readonly string[] = ["gateway.url", "bus.url", "telegram.api_root", "telegram.webhook_url", "discord.api_root", "slack.api_root"];

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  return pattern.length === path.length && pattern.every((step, i) => step === "*" || step === path[i]);
}

function steps(path: readonly PropertyKey[]): string[] {
  return path.map(String);
}

/**
 * Whether the value at `path` is, holds or lies inside a secret: `bus.password`, `agent.env.API_KEY`,
 * and also `agent.env` or `gateway` as a whole (a wrong-typed table may still carry the secret).
 */
export function holdsSecret(path: readonly PropertyKey[]): boolean {
  const at = steps(path);
  // The whole input is a table whenever it comes from TOML; a programmatic non-table holds no key.
  if (at.length === 0) return false;
  return secretKeys.some((key) => {
    const pattern = key.split(".");
    // Inside or equal to a secret key, or a table on the way to one.
    return matches(pattern, at.slice(0, pattern.length)) || matches(pattern.slice(0, at.length), at);
  });
}

/** Whether the value at `path` is one of the URL keys. */
export function isUrlKey(path: readonly PropertyKey[]): boolean {
  const at = steps(path);
  return urlKeys.some((key) => matches(key.split("."), at));
}
