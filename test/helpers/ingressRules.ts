import type { IngressRules } from "../../src/platforms/platformPort.js";

/** `[gateway]`'s rules when the section sets none: bots skipped, every channel and user trusted. */
export const defaultIngress: IngressRules = { allow_bot_messages: false, trusted_bot_ids: [], allowed_channels: [], allowed_users: [] };
