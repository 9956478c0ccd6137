import type { GatewayEvent } from "../gatewayEvent.js";
import { threadIdOf } from "../threadIdOf.js";

/**
 * The `openab.sender.v1` JSON for one arrival (protocol §7.1): compact, keys in the protocol's
 * order, optional keys left out. `receivedAtIso` (the broker's receive time, ISO-8601 UTC) stands
 * in for an empty `timestamp`. `receiver_id` is never set: the gateway path carries no recipient.
 */
export function senderContext(event: GatewayEvent, receivedAtIso: string): string {
  const thread = threadIdOf(event.channel);
  // Built in key order: JSON.stringify keeps insertion order, and the agent sees these bytes.
  return JSON.stringify({
    schema: "openab.sender.v1",
    sender_id: event.sender.id,
    sender_name: event.sender.name,
    display_name: event.sender.display_name,
    channel: event.channel.type,
    channel_id: event.channel.id,
    ...(thread !== undefined ? { thread_id: thread } : {}),
    is_bot: event.sender.is_bot,
    timestamp: event.timestamp !== "" ? event.timestamp : receivedAtIso,
    ...(event.message_id !== "" ? { message_id: event.message_id } : {}),
  });
}
