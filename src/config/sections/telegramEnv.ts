import type * as z from "zod";
import { printValue } from "../problems/printValue.js";

// Upstream's environment fallbacks for `[telegram]` (OpenAB `TelegramConfig::resolve`): each key
// is the file's value, else its variable, else the default. An empty variable counts as unset.

/** Each `[telegram]` key that falls back to an environment variable, and the variable's name (upstream's). */
export const TELEGRAM_ENV = {
  bot_token: "TELEGRAM_BOT_TOKEN",
  secret_token: "TELEGRAM_SECRET_TOKEN",
  trusted_source_only: "TELEGRAM_TRUSTED_SOURCE_ONLY",
  rich_messages: "TELEGRAM_RICH_MESSAGES",
  streaming: "TELEGRAM_STREAMING",
  webhook_path: "TELEGRAM_WEBHOOK_PATH",
  allow_all_users: "TELEGRAM_ALLOW_ALL_USERS",
  allowed_users: "TELEGRAM_ALLOWED_USERS",
} as const;

export type TelegramEnvKey = keyof typeof TELEGRAM_ENV;

/** The string keys where `""` (an unset `${VAR}` included) means "not given here": the variable is read instead. */
const FALLS_THROUGH: ReadonlySet<string> = new Set<TelegramEnvKey>(["bot_token", "secret_token", "webhook_path"]);

/**
 * Whether an unset `${VAR}` at `path` becomes `""` instead of a problem: `[telegram]`'s string keys
 * with a variable of their own, where upstream lets `bot_token = "${UNSET}"` fall through to
 * `TELEGRAM_BOT_TOKEN`.
 */
export function fallsThroughToEnv(path: readonly PropertyKey[]): boolean {
  return path.length === 2 && path[0] === "telegram" && FALLS_THROUGH.has(String(path[1]));
}

/**
 * A problem about a variable's value, at the key it stands in for. `valueFree` tells the problem
 * formatter the message quotes no value, so it is printed as is even under a secret key.
 */
function envIssue(ctx: z.core.$RefinementCtx, key: TelegramEnvKey, message: string): void {
  ctx.addIssue({ code: "custom", path: [key], message, params: { valueFree: true } });
}

/** The variable's value, `undefined` when unset or empty. */
export function envString(env: NodeJS.ProcessEnv, key: TelegramEnvKey): string | undefined {
  const value = env[TELEGRAM_ENV[key]];
  return value === undefined || value === "" ? undefined : value;
}

/** A string variable that must match `pattern`; a mismatch is a problem naming the variable, never its value. */
export function envMatching(env: NodeJS.ProcessEnv, key: TelegramEnvKey, pattern: RegExp, expected: string, ctx: z.core.$RefinementCtx): string | undefined {
  const value = envString(env, key);
  if (value === undefined || pattern.test(value)) return value;
  envIssue(ctx, key, `${TELEGRAM_ENV[key]} in the environment (value hidden) is not allowed; expected ${expected}`);
  return undefined;
}

/** A boolean variable: `true`/`1` or `false`/`0`, any case. Anything else is a problem (upstream read it as one or the other). */
export function envFlag(env: NodeJS.ProcessEnv, key: TelegramEnvKey, ctx: z.core.$RefinementCtx): boolean | undefined {
  const value = envString(env, key);
  if (value === undefined) return undefined;
  const word = value.toLowerCase();
  if (word === "true" || word === "1") return true;
  if (word === "false" || word === "0") return false;
  envIssue(ctx, key, `${TELEGRAM_ENV[key]}=${printValue(value)} in the environment is not allowed; expected true, false, 1 or 0`);
  return undefined;
}

/** A list variable, comma-separated, each item trimmed, empty items left out (upstream's split). */
export function envList(env: NodeJS.ProcessEnv, key: TelegramEnvKey): string[] | undefined {
  const value = envString(env, key);
  if (value === undefined) return undefined;
  return value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

/** `bot_token` given neither in the file nor in the environment: the section cannot work. */
export function missingBotToken(ctx: z.core.$RefinementCtx): void {
  envIssue(ctx, "bot_token", `required: set it here or in the environment as ${TELEGRAM_ENV.bot_token} (the token @BotFather gave the bot)`);
}
