import type { GatewayMessageCreateDispatchData } from "@discordjs/core";
import type { GatewayAttachment, GatewayChannel, GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";

/** The platform name of every Discord event: its session keys (`discord:<channel>:<thread>`) and send subject. */
export const DISCORD = "discord";

/** A message's event id: the same on every delivery of it, so the turn stream's msg-id collapses a redelivery. */
export function discordEventId(messageId: string): string {
  return `dc${messageId}`;
}

/** Where a conversation is, as an event's channel: the parent channel and the thread, or a DM. */
export type Conversation = { readonly kind: "dm"; readonly channelId: string } | { readonly kind: "thread"; readonly parentId: string; readonly threadId: string };

export function eventChannel(conversation: Conversation): GatewayChannel {
  return conversation.kind === "dm" ? { id: conversation.channelId, type: "dm" } : { id: conversation.parentId, type: "thread", thread_id: conversation.threadId };
}

/**
 * A Discord message as the broker's event (§1.5's sender context): the parent channel and the
 * thread (a DM: its channel, no thread), the author (guild nickname, else global name, else
 * username, as the display name), the prompt after mention resolution, the attachments, the
 * mentioned users' names and the message id. The timestamp is the message's own, so the event is
 * the same on every delivery.
 */
export function messageEvent(message: GatewayMessageCreateDispatchData, prompt: string, conversation: Conversation, attachments: readonly GatewayAttachment[]): GatewayEvent {
  const author = message.author;
  return {
    schema: "openab.gateway.event.v1",
    event_id: discordEventId(message.id),
    timestamp: message.timestamp,
    platform: DISCORD,
    channel: eventChannel(conversation),
    sender: {
      id: author.id,
      name: author.username,
      display_name: message.member?.nick ?? author.global_name ?? author.username,
      is_bot: author.bot === true,
    },
    content: attachments.length === 0 ? { type: "text", text: prompt } : { type: "text", text: prompt, attachments },
    mentions: message.mentions.map((user) => user.username),
    message_id: message.id,
    proactive: false,
  };
}
