import { SKIPPED_MESSAGE_ID } from "../../wire/index.js";
import type { OutboundMessage } from "../../../operators/delivery/outboundMessage.js";
import type { GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { replyChannel } from "./replyMessage.js";

/**
 * The command frame that edits (`text`) or deletes (`text` undefined) a message the turn posted,
 * as upstream fills it (§4.3): `reply_to` is the message's id, the new text is `content.text`
 * (`""` for a delete), in the event's conversation.
 */
export function messageChange(event: GatewayEvent, messageId: string, text: string | undefined): OutboundMessage {
  return changeIn({ platform: event.platform, channel: replyChannel(event) }, messageId, text);
}

/** The same frame, in the conversation a message the turn sends names (its platform and channel). */
export function changeIn(conversation: Pick<OutboundMessage, "platform" | "channel">, messageId: string, text: string | undefined): OutboundMessage {
  return {
    reply_to: messageId,
    platform: conversation.platform,
    channel: conversation.channel,
    content: { type: "text", text: text ?? "" },
    command: text === undefined ? "delete_message" : "edit_message",
  };
}

/** Whether a receipt names the posted message (a legacy gateway that confirmed without an id does not). */
export function namesMessage(messageId: string): boolean {
  return messageId !== "" && messageId !== "gw_sent" && messageId !== SKIPPED_MESSAGE_ID;
}
