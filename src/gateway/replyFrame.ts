import type { OutboundAttachment, OutboundMessage } from "../../operators/delivery/outboundMessage.js";

/**
 * The `openab.gateway.reply.v1` frame for a message: OpenAB's key order, optional keys omitted (never null).
 * `file`, the bytes of `message.attachment` on a plain send, travels inline as `content.attachments`
 * (one entry, the event attachments' shape: `type`, `filename`, `mime_type`, `data` in base64,
 * `size`); `content.text` is then its caption.
 */
export function replyFrame(message: OutboundMessage, requestId: string | undefined, file?: Uint8Array): string {
  const channel = message.channel.thread_id === undefined ? { id: message.channel.id } : { id: message.channel.id, thread_id: message.channel.thread_id };
  const attachments = file === undefined || message.command !== undefined || message.attachment === undefined ? undefined : [frameAttachment(message.attachment, file)];
  return JSON.stringify({
    schema: "openab.gateway.reply.v1",
    reply_to: message.reply_to,
    platform: message.platform,
    channel,
    content: attachments === undefined ? { type: message.content.type, text: message.content.text } : { type: message.content.type, text: message.content.text, attachments },
    ...(message.command === undefined ? {} : { command: message.command }),
    ...(requestId === undefined ? {} : { request_id: requestId }),
    ...(message.quote_message_id === undefined ? {} : { quote_message_id: message.quote_message_id }),
  });
}

/** One `content.attachments` entry: what the bytes are, and the bytes in base64 (read in place, not copied). */
function frameAttachment(attachment: OutboundAttachment, file: Uint8Array): Record<string, unknown> {
  return {
    type: attachment.kind === "image" ? "image" : "file",
    filename: attachment.filename,
    mime_type: attachment.mime_type,
    data: Buffer.from(file.buffer, file.byteOffset, file.byteLength).toString("base64"),
    size: file.byteLength,
  };
}

/** `?token=` or `&token=`, appended as configured (upstream does not URL-encode it). */
export function gatewayUrl(url: string, token: string | undefined): string {
  if (token === undefined) return url;
  return `${url}${url.includes("?") ? "&" : "?"}token=${token}`;
}
