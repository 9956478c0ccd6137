import type { OutboundMessage } from "../../operators/delivery/outboundMessage.js";

/** The `openab.gateway.reply.v1` frame for a message: OpenAB's key order, optional keys omitted (never null). */
export function replyFrame(message: OutboundMessage, requestId: string | undefined): string {
  const channel = message.channel.thread_id === undefined ? { id: message.channel.id } : { id: message.channel.id, thread_id: message.channel.thread_id };
  return JSON.stringify({
    schema: "openab.gateway.reply.v1",
    reply_to: message.reply_to,
    platform: message.platform,
    channel,
    content: { type: message.content.type, text: message.content.text },
    ...(message.command === undefined ? {} : { command: message.command }),
    ...(requestId === undefined ? {} : { request_id: requestId }),
    ...(message.quote_message_id === undefined ? {} : { quote_message_id: message.quote_message_id }),
  });
}

/** `?token=` or `&token=`, appended as configured (upstream does not URL-encode it). */
export function gatewayUrl(url: string, token: string | undefined): string {
  if (token === undefined) return url;
  return `${url}${url.includes("?") ? "&" : "?"}token=${token}`;
}
