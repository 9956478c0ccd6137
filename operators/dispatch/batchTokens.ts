import { attachmentBlock } from "../ingress/prompt/attachmentBlock.js";
import type { GatewayEvent } from "../ingress/gatewayEvent.js";

/** Upstream's coarse guard rail: 4 bytes per token of text, 512 per image. */
const BYTES_PER_TOKEN = 4;
const TOKENS_PER_IMAGE = 512;

/**
 * One arrival's token estimate for `max_batch_tokens`, as upstream counts it (§13): the message
 * text's UTF-8 bytes / 4 + 1, plus for each attachment's prompt block its text bytes / 4 + 1, or
 * 512 for an image (integer division). The sender context is not counted. Linear in the event.
 */
export function batchTokens(event: Pick<GatewayEvent, "content">): number {
  let tokens = textTokens(event.content.text);
  for (const attachment of event.content.attachments ?? []) {
    const block = attachmentBlock(attachment);
    if (block === undefined) continue;
    tokens += block.type === "text" ? textTokens(block.text) : TOKENS_PER_IMAGE;
  }
  return tokens;
}

function textTokens(text: string): number {
  return Math.floor(Buffer.byteLength(text, "utf8") / BYTES_PER_TOKEN) + 1;
}
