import type { IngressRules } from "../platformPort.js";

/**
 * The skip and trust rules the edge applies to `[discord]`'s events: open, because the port
 * already applied upstream's own gates in their order (§2.3: channels, users with the 🚫
 * answer, bots, mentions, DMs). The gateway path's gate would answer a stranger with a "not on the
 * trusted list" text Discord's upstream never sends, and its bot rule knows no `mentions` mode.
 */
export function discordIngress(): IngressRules {
  return { allow_all_users: true, allowed_users: [], allow_all_channels: true, allowed_channels: [], allow_bot_messages: true, trusted_bot_ids: [] };
}
