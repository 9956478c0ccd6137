import type { IngressRules } from "../platformPort.js";

/**
 * The edge's skip and trust rules for `[slack]` events: none of its own. The adapter applies
 * upstream's whole order before an event leaves it (§3.3–3.4: the channel and user allow-lists with
 * their 🚫, the bot modes and trusted bots, mentions, threads, participation), so an event that
 * reaches the edge has passed them; the edge's gate, which knows only the gateway's flat rules,
 * must not judge it again (it would answer a denied person with the gateway's text, where upstream
 * reacts 🚫).
 */
export function slackIngress(): IngressRules {
  return {
    allow_bot_messages: true,
    trusted_bot_ids: [],
    allow_all_channels: true,
    allowed_channels: [],
    allow_all_users: true,
    allowed_users: [],
  };
}
