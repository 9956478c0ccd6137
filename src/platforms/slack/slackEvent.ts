import type { GatewayAttachment, GatewayEvent } from "../../../operators/ingress/gatewayEvent.js";
import { slackTsToIso8601 } from "./slackTimestamp.js";
import { isBotEvent, isDmChannel, replyThreadOf, senderIdOf, SLACK, type SlackMessageEvent } from "./slackMessageEvent.js";

/**
 * The broker's event for an accepted Slack message: platform `slack`, the channel, and as its thread
 * `thread_ts ?? ts` — every answer goes into a thread, under the message itself when it was
 * top-level (upstream's reply location, §1.3), so a reply in that thread is the same conversation.
 * The event id is Slack's `event_id`, the same on every delivery, so a Slack retry collapses in the
 * broker's dedupe; the message id is the `ts` (what reactions and edits name); the timestamp is the
 * `ts` as upstream writes it. `channel.type` is `dm` for a `D…` channel, `channel` otherwise.
 */
export function slackEventOf(event: SlackMessageEvent, prompt: string, senderName: string, attachments: readonly GatewayAttachment[]): GatewayEvent {
  return {
    schema: "openab.gateway.event.v1",
    event_id: event.eventId,
    timestamp: slackTsToIso8601(event.ts),
    platform: SLACK,
    channel: { id: event.channel, type: isDmChannel(event.channel) ? "dm" : "channel", thread_id: replyThreadOf(event) },
    sender: { id: senderIdOf(event), name: senderName, display_name: senderName, is_bot: isBotEvent(event) },
    content: attachments.length === 0 ? { type: "text", text: prompt } : { type: "text", text: prompt, attachments },
    mentions: [],
    message_id: event.ts,
    proactive: false,
  };
}
