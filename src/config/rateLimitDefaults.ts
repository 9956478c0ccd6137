import type { SendKind } from "../../operators/delivery/flow/sendKind.js";
import type { RateLimitsInput } from "./sections/rateLimits.js";

/**
 * What chat platforms let a bot send, from the published figures gathered in
 * `../shared/reference/platform-limits.md` (docs/delivery.md#rate-limits cites each). Sized so that one
 * ordinary bubble turn (the default `max_bubbles` 4 plus an activity message, at `bubble_delay_ms`
 * pacing) passes unshaped, and what is held to the platform's figure is the sustained rate.
 * Platforms not listed have no limits unless `[rate_limits.<platform>]` sets some.
 */
export const RATE_LIMIT_DEFAULTS = {
  // Telegram Bot FAQ: about 1 message per second per chat, 20 per minute per group, about 30 per second in all.
  telegram: {
    per_conversation: { messages: 1, per_secs: 1, burst: 5 },
    per_group: { messages: 20, per_secs: 60 },
    per_bot: { messages: 30, per_secs: 1 },
  },
  // Discord's per-channel message bucket (5 per 5 s) and its global limit (50 requests per second).
  discord: {
    per_conversation: { messages: 5, per_secs: 5 },
    per_bot: { messages: 50, per_secs: 1 },
  },
  // Slack's chat.postMessage: about 1 per second per channel, short bursts allowed; the workspace
  // limits are per method tier, not one figure to default to.
  slack: {
    per_conversation: { messages: 1, per_secs: 1, burst: 5 },
  },
  // LINE Messaging API: 2,000 requests per second per channel (the bot); no per-chat figure.
  line: {
    per_bot: { messages: 2_000, per_secs: 1 },
  },
} as const satisfies RateLimitsInput;

/** Kinds of send each platform's conversation and bot buckets count; a platform not listed counts new messages in both. */
export const RATE_LIMIT_COUNTS: Readonly<Record<string, { readonly conversation: readonly SendKind[]; readonly bot: readonly SendKind[] }>> = {
  // The per-chat and per-bot figures are for messages sent; edits, reactions and chat actions (typing) are not counted in them.
  telegram: { conversation: ["message"], bot: ["message"] },
  // A channel's message bucket counts new messages; the global limit counts every request.
  discord: { conversation: ["message"], bot: ["message", "edit", "delete", "reaction", "typing"] },
  slack: { conversation: ["message"], bot: ["message"] },
  // Every Messaging API request counts against the channel's rate.
  line: { conversation: ["message"], bot: ["message", "edit", "delete", "reaction", "typing"] },
};
