import type { GatewayChannel } from "./gatewayEvent.js";

const GROUP_CHANNELS: ReadonlySet<string> = new Set(["group", "supergroup"]);

/** Whether a channel is a group conversation (`group`, `supergroup`): what @mention gating and per-group rate limits apply to. */
export function isGroupChannel(channel: Pick<GatewayChannel, "type">): boolean {
  return GROUP_CHANNELS.has(channel.type);
}
