import * as z from "zod";
import { choice } from "../choice.js";
import { int, nonEmptyString } from "../fields.js";

/** `[delivery]`: how a turn's reply reaches the chat (one text, or planned bubbles). */
export const deliverySection = z
  .strictObject({
    mode: choice({
      values: ["text", "structured", "sequential"],
      aliases: { plain: "text", off: "text", bubbles: "structured" },
    }).default("text"),
    schema: nonEmptyString().default("openab.turn.v1"),
    max_bubbles: int(1).default(4),
    max_bubble_chars: int(0).default(1200),
    bubble_delay_ms: int(0).default(400),
    on_parse_error: choice({
      values: ["fallback_text", "error_message", "silent"],
      aliases: { fallback: "fallback_text", text: "fallback_text", error: "error_message", drop: "silent" },
    }).default("fallback_text"),
    parse_error_text: z.string().default("⚠️ something went wrong composing that reply"),
    // turnstream's own: the MCP `reply` tool offered to every session in structured and sequential modes.
    reply_tool: choice({ values: ["auto", "off"] }).default("auto"),
    reply_tool_instructions: z.boolean().default(true),
  })
  .prefault({});
