import * as z from "zod";
import { choice } from "../choice.js";
import { int, stringList } from "../fields.js";
import { expecting } from "../problems/expected.js";

/**
 * The gate and dispatcher keys OpenAB's `[discord]` and `[slack]` share, with upstream's spellings,
 * aliases and defaults (v0.8.3): who may start a turn (`allow_bot_messages`, `allow_user_messages`,
 * `max_bot_turns`), the allow-all resolution of its rule 5, and the three message-processing keys
 * `[gateway]` has too. Each section spreads `chatGateKeys` into its own `strictObject`.
 */

export const botMessageModes = ["off", "mentions", "all"] as const;
/** Which other bots' messages may start a turn: none, only those that mention this bot, or all. */
export type BotMessageMode = (typeof botMessageModes)[number];

export const userMessageModes = ["involved", "mentions", "multibot-mentions"] as const;
/**
 * When an unmentioned message in a thread starts a turn: `involved` (the bot posted in the thread),
 * `mentions` (never: a mention is required), `multibot-mentions` (as `involved`, unless another bot
 * is in the thread).
 */
export type UserMessageMode = (typeof userMessageModes)[number];

export const messageProcessingModes = ["per-message", "per-thread", "per-lane"] as const;
export type MessageProcessingMode = (typeof messageProcessingModes)[number];

/** Upstream's default for `max_bot_turns`; the hard cap (`HARD_BOT_TURN_LIMIT`) is also 100, in `botTurns.ts`. */
export const DEFAULT_MAX_BOT_TURNS = 100;
/** A u32, as upstream reads `max_bot_turns`. */
const U32_MAX = 4_294_967_295;

const botMessageChoice = choice({ values: botMessageModes, aliases: { none: "off", false: "off", true: "all" } });

/** `allow_bot_messages`: a mode, an alias (`none`/`false` → off, `true` → all, any case), or a TOML boolean. */
export function allowBotMessages() {
  const schema = z.union([z.boolean().transform((on): BotMessageMode => (on ? "all" : "off")), botMessageChoice]);
  return expecting(schema, `one of ${botMessageModes.join(", ")} (aliases: none, false, true), or a boolean`);
}

/** `allow_user_messages`: a mode, any case, `_` for `-` (`multibot_mentions`). */
export function allowUserMessages() {
  return choice({ values: userMessageModes, aliases: { multibot_mentions: "multibot-mentions" } });
}

/** The shared keys with upstream's defaults; spread into a section's `strictObject`. */
export const chatGateKeys = {
  // Unset when absent: `resolveAllowAll` derives the flag from its list.
  allow_all_channels: z.boolean().optional(),
  allow_all_users: z.boolean().optional(),
  allow_bot_messages: allowBotMessages().default("off"),
  trusted_bot_ids: stringList().default(() => []),
  allow_user_messages: allowUserMessages().default("involved"),
  max_bot_turns: int(0, U32_MAX).default(DEFAULT_MAX_BOT_TURNS),
  message_processing_mode: choice({ values: messageProcessingModes }).default("per-message"),
  max_buffered_messages: int(1).default(10),
  max_batch_tokens: int(1).default(24_000),
} as const;

/**
 * Upstream's `resolve_allow_all` (rule 5): an explicit flag wins; omitted, "allow all" is "the
 * list is empty".
 */
export function resolveAllowAll(flag: boolean | undefined, list: readonly unknown[]): boolean {
  return flag ?? list.length === 0;
}

/** The shared keys as a section resolves them. */
export interface ChatGates {
  readonly allow_all_channels: boolean;
  readonly allow_all_users: boolean;
  readonly allow_bot_messages: BotMessageMode;
  readonly allow_user_messages: UserMessageMode;
  readonly max_bot_turns: number;
  readonly message_processing_mode: MessageProcessingMode;
  readonly max_buffered_messages: number;
  readonly max_batch_tokens: number;
}
