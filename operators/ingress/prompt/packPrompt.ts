import { NO_PROMPT_CAPABILITIES, type ContentBlock, type PromptCapabilities } from "../../dispatch/contentBlock.js";
import { overflowNotice } from "../../dispatch/queuedPrompt.js";
import { attachmentBlock } from "./attachmentBlock.js";
import type { GatewayEvent } from "../gatewayEvent.js";
import { senderContext } from "./senderContext.js";

/**
 * One arrival's ACP prompt blocks (protocol §7.2): the sender context, the attachments' text
 * blocks in order, the message text (left out when empty), then the images and embedded files in
 * order. A batch is the concatenation of its arrivals' blocks; agents split it at the
 * `<sender_context>` openers. `accepts`: what the agent said its prompts may hold (`attachmentBlock`).
 */
export function packPrompt(event: GatewayEvent, receivedAtIso: string, accepts: PromptCapabilities = NO_PROMPT_CAPABILITIES): ContentBlock[] {
  const context: ContentBlock = {
    type: "text",
    text: `<sender_context>\n${senderContext(event, receivedAtIso)}\n</sender_context>`,
  };
  const blocks = (event.content.attachments ?? []).flatMap((attachment) => attachmentBlock(attachment, accepts) ?? []);
  const text: ContentBlock[] = event.content.text !== "" ? [{ type: "text", text: event.content.text }] : [];
  return [
    context,
    ...blocks.filter((block) => block.type === "text"),
    ...text,
    ...blocks.filter((block) => block.type !== "text"),
  ];
}

/**
 * A batch's prompt (OpenAB's batching, §13): every arrival packed as `packPrompt` packs one, in
 * arrival order, after OpenClaw's overflow block when the queue cap dropped messages before them.
 */
export function packBatch(events: readonly GatewayEvent[], dropped: readonly string[], receivedAtIso: string, accepts: PromptCapabilities = NO_PROMPT_CAPABILITIES): ContentBlock[] {
  const blocks: ContentBlock[] = dropped.length > 0 ? [{ type: "text", text: overflowNotice(dropped) }] : [];
  for (const event of events) blocks.push(...packPrompt(event, receivedAtIso, accepts));
  return blocks;
}
