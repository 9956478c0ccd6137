import * as z from "zod";
import { httpUrl, nonEmptyString, stringList } from "../fields.js";
import { expecting } from "../problems/expected.js";
import { chatGateKeys, resolveAllowAll, type ChatGates } from "./chatGates.js";

/**
 * `[discord]`: turnstream's own Discord connection (OpenAB's core connects natively too), every key
 * of OpenAB's `DiscordConfig` with its default and validation, so an OpenAB `[discord]` drops in;
 * then turnstream's `api_root`. ID lists are read as upstream's `parse_id_set` reads them: each
 * entry an unsigned 64-bit decimal (a snowflake); an entry that is not one is dropped and kept in
 * `dropped_ids` for the port to log at start (`ignoring invalid entry`, the config module has no
 * logger); a non-empty list whose entries all fail is refused with upstream's words.
 */

export const DEFAULT_DISCORD_API_ROOT = "https://discord.com/api";

/** One ID-list entry that is not a snowflake: which list (upstream's label) and what it said. */
export interface DroppedId {
  readonly label: string;
  readonly value: string;
}

export interface DiscordConfig extends ChatGates {
  /** The bot's token (secret). */
  readonly bot_token: string;
  /** Channel ids; a thread is allowed when its own id or its parent's is listed. */
  readonly allowed_channels: readonly string[];
  /** Human user ids; never applied to bots. */
  readonly allowed_users: readonly string[];
  /** When non-empty, only these bots pass the bot gate. */
  readonly trusted_bot_ids: readonly string[];
  /** A mention of one of these roles counts as a mention of the bot. */
  readonly allowed_role_ids: readonly string[];
  /** Process direct messages. */
  readonly allow_dm: boolean;
  /** Discord's REST root (`/v10` is appended), without a trailing `/`; the gateway URL comes from `GET /gateway/bot`. */
  readonly api_root: string;
  /** Entries of the ID lists that were not snowflakes, for the port to log. */
  readonly dropped_ids: readonly DroppedId[];
}

const U64_MAX = 18_446_744_073_709_551_615n;
const DIGITS = /^\+?\d{1,20}$/;

/** An entry as Rust's `u64::from_str` reads it (digits, an optional `+`), canonical; undefined when it is none. */
export function snowflakeOf(entry: string): string | undefined {
  if (!DIGITS.test(entry)) return undefined;
  const value = BigInt(entry.replace("+", ""));
  return value <= U64_MAX ? value.toString() : undefined;
}

/** One ID list read: its snowflakes, and the entries dropped. */
export function parseIdList(entries: readonly string[], label: string): { readonly ids: string[]; readonly dropped: DroppedId[] } {
  const ids: string[] = [];
  const dropped: DroppedId[] = [];
  for (const entry of entries) {
    const id = snowflakeOf(entry);
    if (id === undefined) dropped.push({ label, value: entry });
    else if (!ids.includes(id)) ids.push(id);
  }
  return { ids, dropped };
}

/**
 * The bot's user id from its token, or `undefined` for a string not shaped as a bot token: a
 * Discord bot token's first dot-separated part is the bot's id in base64 (public: the bot's user
 * id, which names its receiver lease); the rest is the secret.
 */
export function discordBotIdOf(token: string): string | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts.some((part) => part === "")) return undefined;
  const id = Buffer.from(parts[0] ?? "", "base64").toString("utf8");
  return /^\d{15,20}$/.test(id) ? id : undefined;
}

/** `bot_token`: shaped as Discord's (three parts, the first the bot's id in base64); its problems quote nothing of it. */
function botToken() {
  const expected = "a bot token as the Developer Portal gives it: three dot-separated parts, the first the bot's id in base64";
  const schema = nonEmptyString().superRefine((value, ctx) => {
    if (value !== "" && discordBotIdOf(value) === undefined) ctx.addIssue({ code: "custom", message: `is not a Discord bot token (value hidden); expected ${expected}`, input: value, params: { valueFree: true } });
  });
  return expecting(schema, expected);
}

const discordKeys = z.strictObject({
  bot_token: botToken(),
  allowed_channels: stringList().default(() => []),
  allowed_users: stringList().default(() => []),
  allowed_role_ids: stringList().default(() => []),
  allow_dm: z.boolean().default(false),
  ...chatGateKeys,
  // turnstream's own.
  api_root: httpUrl().default(DEFAULT_DISCORD_API_ROOT),
});

type DiscordKeys = z.output<typeof discordKeys>;

const ID_LISTS = ["allowed_channels", "allowed_users", "trusted_bot_ids", "allowed_role_ids"] as const;

function resolveDiscord(keys: DiscordKeys, ctx: z.core.$RefinementCtx): DiscordConfig {
  const dropped: DroppedId[] = [];
  const lists = {} as Record<(typeof ID_LISTS)[number], string[]>;
  for (const key of ID_LISTS) {
    const label = `discord.${key}`;
    const parsed = parseIdList(keys[key], label);
    lists[key] = parsed.ids;
    dropped.push(...parsed.dropped);
    if (keys[key].length > 0 && parsed.ids.length === 0) {
      ctx.addIssue({ code: "custom", path: [key], message: `all ${label} entries failed to parse — refusing to start with an empty allowlist`, input: keys[key] });
    }
  }
  return {
    bot_token: keys.bot_token,
    allow_all_channels: resolveAllowAll(keys.allow_all_channels, lists.allowed_channels),
    allowed_channels: lists.allowed_channels,
    allow_all_users: resolveAllowAll(keys.allow_all_users, lists.allowed_users),
    allowed_users: lists.allowed_users,
    allow_bot_messages: keys.allow_bot_messages,
    trusted_bot_ids: lists.trusted_bot_ids,
    allow_user_messages: keys.allow_user_messages,
    max_bot_turns: keys.max_bot_turns,
    allowed_role_ids: lists.allowed_role_ids,
    allow_dm: keys.allow_dm,
    message_processing_mode: keys.message_processing_mode,
    max_buffered_messages: keys.max_buffered_messages,
    max_batch_tokens: keys.max_batch_tokens,
    api_root: withoutTrailingSlashes(keys.api_root),
    dropped_ids: dropped,
  };
}

function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === "/") end -= 1;
  return url.slice(0, end);
}

/** `[discord]`: optional; when present, `bot_token` is required. */
export const discordSection = discordKeys.transform((keys, ctx): DiscordConfig => resolveDiscord(keys, ctx));
