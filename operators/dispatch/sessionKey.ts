import type { GatewayEvent } from "../ingress/gatewayEvent.js";

/**
 * `platform:thread_or_channel` — one ACP session and one turn at a time per key. Never includes
 * the sender: everyone in a thread shares the conversation.
 */
export function sessionKey(event: Pick<GatewayEvent, "platform" | "channel">): string {
  const thread = event.channel.thread_id;
  return `${event.platform}:${thread != null && thread !== "" ? thread : event.channel.id}`;
}
