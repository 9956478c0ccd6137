import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import type { ReactionChange } from "../../../operators/delivery/status/statusReactions.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { replyChannel } from "../delivery/replyMessage.js";

/**
 * The command frame of one reaction change on the user's message (`message_id` of the event; for a
 * batch, its last message), as upstream fills it: `reply_to` is the target message, the emoji is
 * `content.text`.
 */
export function reactionMessage(event: GatewayEvent, change: ReactionChange): OutboundMessage {
  return {
    reply_to: event.message_id,
    platform: event.platform,
    channel: replyChannel(event),
    content: { type: "text", text: change.emoji },
    command: change.op === "add" ? "add_reaction" : "remove_reaction",
  };
}
