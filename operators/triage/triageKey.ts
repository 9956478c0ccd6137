import type { GatewayEvent } from "../ingress/gatewayEvent.js";

/**
 * `platform:channel.id` — whose allowance a proactive event spends. The channel, never the thread:
 * a busy channel cannot use up a DM's allowance, and threads of one channel share theirs.
 */
export function triageKey(event: Pick<GatewayEvent, "platform" | "channel">): string {
  return `${event.platform}:${event.channel.id}`;
}
