import type { GatewayEvent } from "../../operators/ingress/gatewayEvent.js";

/** Where an endpoint's turns speak: the conversation its config names. */
export interface WebhookConversation {
  readonly platform: string;
  readonly channel: string;
  readonly thread_id?: string | undefined;
}

/**
 * The kind of chat a configured channel id names, as the platform's own events would call it, so
 * the turn is paced by the right rate limits and reads group history only in a group: Telegram's
 * group and channel ids are negative (a private chat's positive), Slack's DM ids start with `D`.
 * Elsewhere (Discord, a gateway's platforms) the id does not say: `group`, whose limits are the
 * stricter ones.
 */
export function webhookChannelType(platform: string, channel: string): string {
  if (platform === "telegram") return channel.startsWith("-") ? "group" : "private";
  if (platform === "slack") return channel.startsWith("D") ? "dm" : "channel";
  return "group";
}

/**
 * The proactive event one webhook delivery becomes: `event_id` `webhook:<endpoint>:<id>` (so a
 * sender's retry is the same event for the bus's duplicate window and triage's), the endpoint as
 * a bot sender, the configured conversation, and the rendered prompt as its text.
 */
export function webhookEvent(endpoint: string, conversation: WebhookConversation, id: string, prompt: string, receivedAtIso: string): GatewayEvent {
  const { platform, channel, thread_id: thread } = conversation;
  const type = webhookChannelType(platform, channel);
  return {
    schema: "openab.gateway.event.v1",
    event_id: `webhook:${endpoint}:${id}`,
    timestamp: receivedAtIso,
    platform,
    channel: thread === undefined ? { id: channel, type } : { id: channel, type, thread_id: thread },
    sender: { id: `webhook:${endpoint}`, name: endpoint, display_name: endpoint, is_bot: true },
    content: { type: "text", text: prompt },
    mentions: [],
    message_id: "",
    proactive: true,
    origin: "webhook",
  };
}
