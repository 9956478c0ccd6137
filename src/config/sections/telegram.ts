import * as z from "zod";
import { choice } from "../choice.js";
import { expecting } from "../problems/expected.js";
import { hostPort, httpsUrl, httpUrl, notAllowed, stringList } from "../fields.js";
import { envFlag, envList, envMatching, envString, missingBotToken } from "./telegramEnv.js";

/**
 * `[telegram]`: turnstream's own Telegram connection, no gateway in between. Upstream's keys first
 * (OpenAB's `[telegram]`, same meaning, defaults and environment fallbacks), then turnstream's.
 */

export const telegramModes = ["polling", "webhook"] as const;
export type TelegramMode = (typeof telegramModes)[number];

/** Where turnstream's webhook listener binds by default: where upstream's gateway listens (`GATEWAY_LISTEN`). */
export const DEFAULT_WEBHOOK_LISTEN = "0.0.0.0:8080";
export const DEFAULT_WEBHOOK_PATH = "/webhook/telegram";
export const DEFAULT_API_ROOT = "https://api.telegram.org";

/** What the adapter reads: every key resolved (file → environment → default). */
export interface TelegramConfig {
  /** The bot's token (secret), from the file or `TELEGRAM_BOT_TOKEN`. */
  bot_token: string;
  /** Expected in `X-Telegram-Bot-Api-Secret-Token` on webhook requests (secret); unset: not checked. */
  secret_token?: string;
  /** Webhook requests only from Telegram's published subnets. */
  trusted_source_only: boolean;
  /** A reply with a heading or a table goes as a Telegram rich message (`sendRichMessage`); also `streaming`'s default. */
  rich_messages: boolean;
  /** Text turns edit one message in place as the reply is written; unset in the file and the environment: `rich_messages`. */
  streaming: boolean;
  /** The path the webhook listener serves. */
  webhook_path: string;
  /** Everyone may talk to the bot; `false` (the default): only `allowed_users`. */
  allow_all_users: boolean;
  allowed_users: string[];
  /** The Bot API's root URL, without a trailing `/`. */
  api_root: string;
  /** `polling` (getUpdates) or `webhook` (Telegram posts to `webhook_listen`). */
  mode: TelegramMode;
  /** Registered with setWebhook at start (webhook mode); unset: the operator registers the webhook. */
  webhook_url?: string;
  /** `host:port` the webhook listener binds; set in webhook mode (its default there is `0.0.0.0:8080`). */
  webhook_listen?: string;
  /** Resolved: an unset flag means "`allowed_channels` is empty" (`[gateway]`'s rule). */
  allow_all_channels: boolean;
  allowed_channels: string[];
  allow_bot_messages: boolean;
  trusted_bot_ids: string[];
}

// Telegram's shapes: a token as @BotFather gives it (it travels in the Bot API's URL path), and
// setWebhook's rule for secret_token.
const BOT_TOKEN = /^\d+:[A-Za-z0-9_-]+$/;
const botTokenExpected = "a bot token as @BotFather gives it: digits, a colon, then letters, digits, _ and -";
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
const secretTokenExpected = "1 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)";
const WEBHOOK_PATH = /^\/[^\s?#]*$/;
const webhookPathExpected = 'a path starting with "/", without spaces, "?" or "#"';

/** A string matching `pattern`, or `""`, which stands for "not given here" (the environment is read). */
function matchingOrEmpty(pattern: RegExp, expected: string) {
  const schema = z.string().superRefine((value, ctx) => {
    if (value !== "" && !pattern.test(value)) ctx.addIssue({ code: "custom", message: notAllowed(value, expected), input: value });
  });
  return expecting(schema, `${expected}, or "" to read the environment`);
}

const telegramKeys = z.strictObject({
  // Upstream's keys. Unset (or "") here: the environment variable, then the default.
  bot_token: matchingOrEmpty(BOT_TOKEN, botTokenExpected).optional(),
  secret_token: matchingOrEmpty(SECRET_TOKEN, secretTokenExpected).optional(),
  trusted_source_only: z.boolean().optional(),
  rich_messages: z.boolean().optional(),
  streaming: z.boolean().optional(),
  webhook_path: matchingOrEmpty(WEBHOOK_PATH, webhookPathExpected).optional(),
  allow_all_users: z.boolean().optional(),
  allowed_users: stringList().optional(),
  // turnstream's own.
  api_root: httpUrl().default(DEFAULT_API_ROOT),
  mode: choice({ values: telegramModes }).optional(),
  webhook_url: httpsUrl().optional(),
  webhook_listen: hostPort().optional(),
  allowed_channels: stringList().default(() => []),
  allow_all_channels: z.boolean().optional(),
  allow_bot_messages: z.boolean().default(false),
  trusted_bot_ids: stringList().default(() => []),
});

type TelegramKeys = z.output<typeof telegramKeys>;

/** `""` is "not given" for upstream's string keys. */
function given(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

/**
 * Upstream runs every `[telegram]` as a webhook: a section that sets one of its webhook keys
 * (`secret_token`, `webhook_path`, `trusted_source_only = true`), or one of turnstream's webhook
 * keys, without `mode` keeps doing so. Anything else polls, which needs no public address.
 */
export function impliedMode(keys: Pick<TelegramKeys, "webhook_url" | "webhook_listen">, resolved: { readonly secret_token?: string | undefined; readonly webhook_path?: string | undefined; readonly trusted_source_only: boolean }): TelegramMode {
  const webhookKeys = [resolved.secret_token, resolved.webhook_path, keys.webhook_url, keys.webhook_listen];
  return resolved.trusted_source_only || webhookKeys.some((value) => value !== undefined) ? "webhook" : "polling";
}

/** Every key resolved: the file's value, else the environment's (`TELEGRAM_ENV`), else the default. */
export function resolveTelegram(keys: TelegramKeys, env: NodeJS.ProcessEnv, ctx: z.core.$RefinementCtx): TelegramConfig {
  const botToken = given(keys.bot_token) ?? envMatching(env, "bot_token", BOT_TOKEN, botTokenExpected, ctx);
  if (botToken === undefined && envString(env, "bot_token") === undefined) missingBotToken(ctx);
  const secretToken = given(keys.secret_token) ?? envMatching(env, "secret_token", SECRET_TOKEN, secretTokenExpected, ctx);
  const webhookPath = given(keys.webhook_path) ?? envMatching(env, "webhook_path", WEBHOOK_PATH, webhookPathExpected, ctx);
  const trustedSourceOnly = keys.trusted_source_only ?? envFlag(env, "trusted_source_only", ctx) ?? false;
  const richMessages = keys.rich_messages ?? envFlag(env, "rich_messages", ctx) ?? true;
  const mode = keys.mode ?? impliedMode(keys, { secret_token: secretToken, webhook_path: webhookPath, trusted_source_only: trustedSourceOnly });
  const webhookListen = keys.webhook_listen ?? (mode === "webhook" ? DEFAULT_WEBHOOK_LISTEN : undefined);
  return {
    // A missing or refused token is a problem above: the section fails to resolve, so "" is never seen.
    bot_token: botToken ?? "",
    ...(secretToken === undefined ? {} : { secret_token: secretToken }),
    trusted_source_only: trustedSourceOnly,
    rich_messages: richMessages,
    streaming: keys.streaming ?? envFlag(env, "streaming", ctx) ?? richMessages,
    webhook_path: webhookPath ?? DEFAULT_WEBHOOK_PATH,
    allow_all_users: keys.allow_all_users ?? envFlag(env, "allow_all_users", ctx) ?? false,
    allowed_users: keys.allowed_users ?? envList(env, "allowed_users") ?? [],
    api_root: keys.api_root.replace(/\/+$/, ""),
    mode,
    ...(keys.webhook_url === undefined ? {} : { webhook_url: keys.webhook_url }),
    ...(webhookListen === undefined ? {} : { webhook_listen: webhookListen }),
    allow_all_channels: keys.allow_all_channels ?? keys.allowed_channels.length === 0,
    allowed_channels: keys.allowed_channels,
    allow_bot_messages: keys.allow_bot_messages,
    trusted_bot_ids: keys.trusted_bot_ids,
  };
}

/** `[telegram]`: optional; its environment fallbacks read the broker's environment, hence a factory. */
export function telegramSection(env: NodeJS.ProcessEnv) {
  return telegramKeys.transform((keys, ctx): TelegramConfig => resolveTelegram(keys, env, ctx));
}
