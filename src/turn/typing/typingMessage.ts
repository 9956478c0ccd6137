import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { replyChannel } from "../delivery/replyMessage.js";

/** "The bot is typing" in the event's conversation (its thread included): the `typing` command, no text. */
export function typingMessage(event: GatewayEvent): OutboundMessage {
  return {
    reply_to: event.event_id,
    platform: event.platform,
    channel: replyChannel(event),
    content: { type: "text", text: "" },
    command: "typing",
  };
}
